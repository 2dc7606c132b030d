/**
 * One attempt of a request through undici: the body and headers it goes out with, one time limit over the
 * whole exchange (cut at the call's deadline), the answer mapped to an `ApiError` or parsed through the
 * caller's schema, and every failure re-described for the caller. Retrying is the client's (see
 * `http-client.ts`); an attempt never repeats itself.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ErrorBody } from '../contracts/meeting.js';
import { createApiError } from '../errors/api-error.js';
import { PolymodalError, ResponseValidationError, TimeoutError } from '../errors/polymodal-error.js';
import { platformServiceOf } from '../telemetry/platform-service-of.js';
import type { PolymodalEvents } from '../telemetry/polymodal-events.js';
import type { HttpResponse, RequestOptions } from './http-client.js';
import { parseRetryAfter } from './parse-retry-after.js';
import { BodyTooLargeError, flattenHeaders, parseJson, readText } from './read-response-body.js';
import { toConnectionError } from './to-connection-error.js';
import { request as undiciRequest } from './undici-parts.js';

/** Largest successful JSON body accepted; a transcript of a two-hour meeting is a few MB. */
const MAX_SUCCESS_BODY_BYTES = 64 * 1024 * 1024;
/** Error bodies are read in full (to free the connection) but only this much is kept. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What every attempt of one client shares. */
export interface AttemptDeps {
  dispatcher: Dispatcher;
  /**
   * Whether the dispatcher is the client's own agent, which speaks HTTP/1.1 only: a caller's dispatcher
   * (HTTP/2, a proxy, a mock) may hold chunks after resuming the body, so it gets a fresh buffer per chunk.
   */
  ownAgent: boolean;
  authHeaders: Record<string, string>;
  userAgent: string;
  /** Per attempt, unless the request says otherwise. */
  timeoutMs: number;
  events: Required<PolymodalEvents>;
  redact: (text: string) => string;
}

/** Where the attempt goes: the full URL, and the path and query shown in messages (no base URL). */
export interface AttemptTarget {
  url: string;
  display: string;
}

/** The attempt's time limit and the one signal undici gets: our timeout or the caller's abort. */
interface AttemptClock {
  signal: AbortSignal;
  timedOut: () => boolean;
  attemptTimeoutMs: number;
  /** Whether the limit is the call's deadline rather than the per-attempt timeout. */
  cutByDeadline: boolean;
  dispose(): void;
}

export async function attemptRequest<T>(
  deps: AttemptDeps,
  request: RequestOptions<T>,
  target: AttemptTarget,
): Promise<HttpResponse<T>> {
  const clock = startClock(request, deps.timeoutMs);
  const { headers, body } = requestBody(deps, request);
  // Anything that went wrong is re-described here: the caller's abort as-is, our timeout as a
  // TimeoutError, our own errors (e.g. a file changing during upload) unchanged, the rest as transport.
  const translate = (error: unknown): unknown => {
    if (request.signal?.aborted) return request.signal.reason;
    if (clock.timedOut()) return timeoutError(request.method, target.display, clock);
    if (PolymodalError.isInstance(error)) return error;
    return toConnectionError(error, { method: request.method, display: target.display, redact: deps.redact });
  };
  const interrupted = () => request.signal?.aborted === true || clock.timedOut();
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(target.url, {
        dispatcher: deps.dispatcher,
        method: request.method,
        headers,
        body: body ?? null,
        signal: clock.signal,
      });
    } catch (error) {
      throw translate(error);
    }
    const status = response.statusCode;
    deps.events.platformResponse({
      service: platformServiceOf(request.path),
      method: request.method,
      status,
    });
    const answer = { response, status, headers: flattenHeaders(response.headers) };
    const read = { request, display: target.display, redact: deps.redact, interrupted, translate };
    if (status < 200 || status >= 300) throw await errorOfResponse(answer, read);
    return await parseSuccess(answer, read);
  } finally {
    clock.dispose();
    // A stream body that was not fully consumed (failure, early answer) would keep its file open.
    if (body !== undefined && typeof body !== 'string' && !body.destroyed) body.destroy();
  }
}

function startClock(request: RequestOptions<unknown>, defaultTimeoutMs: number): AttemptClock {
  const untilDeadline =
    request.deadline === undefined ? Number.POSITIVE_INFINITY : request.deadline - Date.now();
  const attemptTimeoutMs = Math.max(0, Math.min(request.timeoutMs ?? defaultTimeoutMs, untilDeadline));
  const cutByDeadline = untilDeadline <= (request.timeoutMs ?? defaultTimeoutMs);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), attemptTimeoutMs);
  // Linked by hand rather than with AbortSignal.any so that nothing stays attached to a long-lived caller
  // signal after the attempt.
  const combined = new AbortController();
  const onTimeout = () => combined.abort(timeout.signal.reason);
  const onCallerAbort = () => combined.abort(request.signal?.reason);
  timeout.signal.addEventListener('abort', onTimeout, { once: true });
  if (request.signal?.aborted) onCallerAbort();
  else request.signal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: combined.signal,
    timedOut: () => timeout.signal.aborted,
    attemptTimeoutMs,
    cutByDeadline,
    dispose() {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
      timeout.signal.removeEventListener('abort', onTimeout);
    },
  };
}

function requestBody(
  deps: AttemptDeps,
  request: RequestOptions<unknown>,
): { headers: Record<string, string>; body: string | Readable | undefined } {
  const headers: Record<string, string> = {
    ...deps.authHeaders,
    accept: 'application/json',
    'user-agent': deps.userAgent,
  };
  if (request.multipart) {
    const multipart = request.multipart();
    headers['content-type'] = multipart.contentType;
    headers['content-length'] = String(multipart.contentLength);
    if (deps.ownAgent) multipart.lendBuffers?.();
    return { headers, body: multipart.body };
  }
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(request.json) };
  }
  return { headers, body: undefined };
}

function timeoutError(method: string, display: string, clock: AttemptClock): TimeoutError {
  const { attemptTimeoutMs } = clock;
  if (clock.cutByDeadline) {
    return new TimeoutError(
      `${method} ${display} was still unanswered when the call's deadline came ` +
        `(${attemptTimeoutMs} ms left); nothing more was waited for.`,
      attemptTimeoutMs,
      { deadlineReached: true },
    );
  }
  return new TimeoutError(
    `${method} ${display} timed out after ${attemptTimeoutMs} ms. The platform may be slow or ` +
      'unreachable; try again, or raise the timeout.',
    attemptTimeoutMs,
  );
}

/** A response as it arrived: undici's answer, its status and its flattened headers. */
interface Answer {
  response: Dispatcher.ResponseData;
  status: number;
  headers: Record<string, string>;
}

/** What reading an answer needs to know of its attempt. */
interface AnswerRead<T> {
  request: RequestOptions<T>;
  display: string;
  redact: (text: string) => string;
  /** Whether the caller aborted or the attempt's time ran out. */
  interrupted: () => boolean;
  translate: (error: unknown) => unknown;
}

/** The `ApiError` of a non-2xx answer, with the server's own words when its body says them. */
async function errorOfResponse(answer: Answer, read: AnswerRead<unknown>): Promise<unknown> {
  const { status, headers } = answer;
  let text = '';
  try {
    text = await readText(answer.response.body, MAX_ERROR_BODY_BYTES, false);
  } catch (error) {
    // The status is what matters; a body lost on the way only costs the server's message, unless the
    // caller aborted or we timed out.
    if (read.interrupted()) return read.translate(error);
  }
  const parsedBody = parseJson(text);
  const errorBody = ErrorBody.safeParse(parsedBody.ok ? parsedBody.value : undefined);
  let serverMessage = errorBody.success ? read.redact(errorBody.data.error) : undefined;
  if (status >= 300 && status < 400) {
    serverMessage = 'the server answered with a redirect, which this client does not follow';
  }
  return createApiError({
    status,
    method: read.request.method,
    url: read.display,
    body: parsedBody.ok ? parsedBody.value : read.redact(text),
    serverMessage,
    retryAfterMs: parseRetryAfter(headers['retry-after']),
    headers,
  });
}

/** A 2xx answer's body, read within the limit and parsed through the request's schema. */
async function parseSuccess<T>(answer: Answer, read: AnswerRead<T>): Promise<HttpResponse<T>> {
  const { status } = answer;
  const { request, display } = read;
  const what = `${request.method} ${display} returned HTTP ${status}`;
  let text: string;
  try {
    text = await readText(answer.response.body, MAX_SUCCESS_BODY_BYTES, true);
  } catch (error) {
    if (read.interrupted()) throw read.translate(error);
    if (error instanceof BodyTooLargeError) {
      throw new ResponseValidationError(
        `${what} with a body over ${error.limit} bytes; refusing to buffer it. Check that the base URL points at the platform.`,
        { status, url: display, retryable: false },
      );
    }
    throw new ResponseValidationError(
      `${what} but the response body was cut off. The connection broke while reading it; try again.`,
      { status, url: display, cause: error, retryable: true },
    );
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new ResponseValidationError(
      `${what} with a body that is not valid JSON (possibly truncated by a proxy). Try again; if it persists, the platform address may be wrong.`,
      { status, url: display, cause: parsed.error, retryable: true },
    );
  }
  const result = request.schema.safeParse(parsed.value);
  if (!result.success) {
    const detail = result.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ResponseValidationError(
      `${what} with an unexpected body (${read.redact(detail)}). ` +
        'The platform and this client disagree on the contract; check that the base URL points at the ' +
        'right platform and that the client is up to date.',
      { status, url: display, cause: result.error, retryable: false },
    );
  }
  return { status, headers: answer.headers, data: result.data };
}
