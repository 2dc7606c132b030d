/**
 * The one HTTP chokepoint of the client. Every call to the platform goes through `request()`, which owns
 * authentication, timeouts, error mapping, response validation and the retry policy.
 *
 * It is built on undici's `request()` rather than `fetch`: `fetch` buffers a streamed request body to be
 * able to replay it on a redirect (a 500 MB upload costs 500 MB of RAM) and forwards `x-api-key` across
 * origins on redirects. Redirects are never followed here; a 3xx is reported as an error.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ZodType } from 'zod';
import { redactSecrets } from '../config/redact-secrets.js';
import { ErrorBody } from '../contracts/meeting.js';
import { ApiError, createApiError } from '../errors/api-error.js';
import {
  ConnectionError,
  PolymodalError,
  ResponseValidationError,
  TimeoutError,
} from '../errors/polymodal-error.js';
import { platformServiceOf } from '../telemetry/platform-service-of.js';
import { guardEvents, type HttpMethod, type PolymodalEvents } from '../telemetry/polymodal-events.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import { computeBackoffMs } from './compute-backoff-ms.js';
import { isRetryableError } from './is-retryable-error.js';
import { parseRetryAfter } from './parse-retry-after.js';
import { Agent, request as undiciRequest } from './undici-parts.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;
/** Largest successful JSON body accepted; a transcript of a two-hour meeting is a few MB. */
const MAX_SUCCESS_BODY_BYTES = 64 * 1024 * 1024;
/** Error bodies are read in full (to free the connection) but only this much is kept. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Transport failures that prove the request never reached the server. */
const NEVER_ARRIVED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A streamed request body with an exact length, e.g. from `createMultipartFileBody`. */
export interface MultipartBody {
  contentType: string;
  contentLength: number;
  body: Readable;
  /**
   * Lets the body reuse the memory of chunks its consumer is known to be done with. Called only by a
   * consumer that pauses the body when its output is full and resumes it only once everything written so
   * far has left the process: undici's HTTP/1.1 body writer (it resumes on the socket's `drain`).
   */
  lendBuffers?: () => void;
}

export interface HttpClientOptions {
  /** Normalised base URL (see `resolveConfig`); request paths are appended to it. */
  baseUrl: string;
  apiKey: string;
  /** `x-api-key: <key>` or `Authorization: Bearer <key>`, as the service expects. */
  auth: 'x-api-key' | 'bearer';
  /** Per attempt, including reading the response body. Default 60 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Use this dispatcher instead of the client's own keep-alive agent (it is then not closed by close()). */
  dispatcher?: Dispatcher;
  userAgent?: string;
  sleep?: SleepFunction;
  random?: () => number;
  /** Told about every answer of the platform (status by service), for metrics; never throws into a request. */
  events?: PolymodalEvents;
}

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** The failure that is being retried. */
  error: unknown;
}

export interface RequestOptions<T> {
  method: HttpMethod;
  /** Path below the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** A factory, so that a permitted retry can rebuild the stream from the start. */
  multipart?: () => MultipartBody;
  /** Schema of a successful (2xx) response body. */
  schema: ZodType<T>;
  /** Whether repeating the request cannot do work twice; decides the retry policy. */
  idempotent: boolean;
  /**
   * Statuses after which this non-idempotent request is known to have done nothing (the service's
   * contract says so), so it may be repeated like a refused connection.
   */
  retryStatuses?: readonly number[];
  signal?: AbortSignal;
  /** Per attempt; default the client's `timeoutMs`. */
  timeoutMs?: number;
  /**
   * When the whole call must be over (epoch ms). Every attempt is cut at it, and a retry whose pause
   * (backoff or Retry-After) would end past it is not made: the last failure is thrown instead, so a
   * `Retry-After: 20` never stretches a call that has 2 s left.
   */
  deadline?: number | undefined;
  /** Retries after the first attempt; default the client's `maxRetries`. */
  maxRetries?: number | undefined;
  onRetry?: (info: RetryInfo) => void;
  /**
   * Whether a 429 is waited out and retried here (default true). False hands every 429 to the caller,
   * for callers that pace themselves (the speech synthesis governor).
   */
  retryRateLimited?: boolean;
}

export interface HttpResponse<T> {
  status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  data: T;
}

export interface HttpClient {
  request<T>(options: RequestOptions<T>): Promise<HttpResponse<T>>;
  /** Closes the client's own connection pool. */
  close(): Promise<void>;
  readonly baseUrl: string;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const apiKey = options.apiKey;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const sleep = options.sleep ?? defaultSleep;
  const userAgent = options.userAgent ?? `polymodal-core node/${process.versions.node}`;
  // undici's own header/body timers are disabled: our per-attempt timeout covers the whole exchange, and
  // the header timer would otherwise run while a large upload is still being sent.
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });
  const dispatcher: Dispatcher = options.dispatcher ?? (ownAgent as Agent);
  const authHeaders: Record<string, string> =
    options.auth === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };
  let closed = false;
  const events = guardEvents(options.events);

  const redact = (text: string) => redactSecrets(text, [apiKey]);

  async function attempt<T>(
    request: RequestOptions<T>,
    target: string,
    display: string,
  ): Promise<HttpResponse<T>> {
    const untilDeadline =
      request.deadline === undefined ? Number.POSITIVE_INFINITY : request.deadline - Date.now();
    const attemptTimeoutMs = Math.max(0, Math.min(request.timeoutMs ?? timeoutMs, untilDeadline));
    const cutByDeadline = untilDeadline <= (request.timeoutMs ?? timeoutMs);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), attemptTimeoutMs);
    // One signal for undici that fires on our timeout or the caller's abort. Linked by hand rather than
    // with AbortSignal.any so that nothing stays attached to a long-lived caller signal after the attempt.
    const combined = new AbortController();
    const onTimeout = () => combined.abort(timeout.signal.reason);
    const onCallerAbort = () => combined.abort(request.signal?.reason);
    timeout.signal.addEventListener('abort', onTimeout, { once: true });
    if (request.signal?.aborted) onCallerAbort();
    else request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = combined.signal;
    const headers: Record<string, string> = {
      ...authHeaders,
      accept: 'application/json',
      'user-agent': userAgent,
    };
    let body: string | Readable | undefined;
    if (request.multipart) {
      const multipart = request.multipart();
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(multipart.contentLength);
      body = multipart.body;
      // Only through our own agent, which speaks HTTP/1.1 only: a caller's dispatcher (HTTP/2, a proxy, a
      // mock) may hold chunks after resuming the body, so it gets a fresh buffer per chunk.
      if (ownAgent) multipart.lendBuffers?.();
    } else if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }

    // Anything that went wrong is re-described here: the caller's abort as-is, our timeout as a
    // TimeoutError, our own errors (e.g. a file changing during upload) unchanged, the rest as transport.
    const translate = (error: unknown): unknown => {
      if (request.signal?.aborted) return request.signal.reason;
      if (timeout.signal.aborted) {
        if (cutByDeadline) {
          return new TimeoutError(
            `${request.method} ${display} was still unanswered when the call's deadline came ` +
              `(${attemptTimeoutMs} ms left); nothing more was waited for.`,
            attemptTimeoutMs,
            { deadlineReached: true },
          );
        }
        return new TimeoutError(
          `${request.method} ${display} timed out after ${attemptTimeoutMs} ms. The platform may be slow or ` +
            'unreachable; try again, or raise the timeout.',
          attemptTimeoutMs,
        );
      }
      if (PolymodalError.isInstance(error)) return error;
      return toConnectionError(error, request.method, display, redact);
    };

    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await undiciRequest(target, {
          dispatcher,
          method: request.method,
          headers,
          body: body ?? null,
          signal,
        });
      } catch (error) {
        throw translate(error);
      }
      const responseHeaders = flattenHeaders(response.headers);
      const status = response.statusCode;
      events.platformResponse({
        service: platformServiceOf(request.path),
        method: request.method,
        status,
      });

      if (status < 200 || status >= 300) {
        let text = '';
        try {
          text = await readText(response.body, MAX_ERROR_BODY_BYTES, false);
        } catch (error) {
          // The status is what matters; a body lost on the way only costs the server's message,
          // unless the caller aborted or we timed out.
          if (request.signal?.aborted || timeout.signal.aborted) throw translate(error);
        }
        const parsedBody = parseJson(text);
        const errorBody = ErrorBody.safeParse(parsedBody.ok ? parsedBody.value : undefined);
        let serverMessage = errorBody.success ? redact(errorBody.data.error) : undefined;
        if (status >= 300 && status < 400) {
          serverMessage = 'the server answered with a redirect, which this client does not follow';
        }
        throw createApiError({
          status,
          method: request.method,
          url: display,
          body: parsedBody.ok ? parsedBody.value : redact(text),
          serverMessage,
          retryAfterMs: parseRetryAfter(responseHeaders['retry-after']),
          headers: responseHeaders,
        });
      }

      let text: string;
      try {
        text = await readText(response.body, MAX_SUCCESS_BODY_BYTES, true);
      } catch (error) {
        if (request.signal?.aborted || timeout.signal.aborted) throw translate(error);
        if (error instanceof BodyTooLargeError) {
          throw new ResponseValidationError(
            `${request.method} ${display} returned HTTP ${status} with a body over ${error.limit} bytes; ` +
              'refusing to buffer it. Check that the base URL points at the platform.',
            { status, url: display, retryable: false },
          );
        }
        throw new ResponseValidationError(
          `${request.method} ${display} returned HTTP ${status} but the response body was cut off. ` +
            'The connection broke while reading it; try again.',
          { status, url: display, cause: error, retryable: true },
        );
      }
      const parsed = parseJson(text);
      if (!parsed.ok) {
        throw new ResponseValidationError(
          `${request.method} ${display} returned HTTP ${status} with a body that is not valid JSON ` +
            '(possibly truncated by a proxy). Try again; if it persists, the platform address may be wrong.',
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
          `${request.method} ${display} returned HTTP ${status} with an unexpected body (${redact(detail)}). ` +
            'The platform and this client disagree on the contract; check that the base URL points at the ' +
            'right platform and that the client is up to date.',
          { status, url: display, cause: result.error, retryable: false },
        );
      }
      return { status, headers: responseHeaders, data: result.data };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
      timeout.signal.removeEventListener('abort', onTimeout);
      // A stream body that was not fully consumed (failure, early answer) would keep its file open.
      if (body !== undefined && typeof body !== 'string' && !body.destroyed) body.destroy();
    }
  }

  return {
    baseUrl,
    async request<T>(request: RequestOptions<T>): Promise<HttpResponse<T>> {
      if (closed)
        throw new ConnectionError('The HTTP client is closed; create a new one.', {
          requestMayHaveArrived: false,
        });
      if (!request.path.startsWith('/')) {
        throw new TypeError(`Request path must start with "/": ${request.path}`);
      }
      const display = request.path + queryString(request.query);
      const target = baseUrl + display;
      const retries = request.maxRetries ?? maxRetries;
      for (let retry = 0; ; retry++) {
        request.signal?.throwIfAborted();
        if (request.deadline !== undefined && Date.now() >= request.deadline) {
          throw new TimeoutError(
            `${request.method} ${display} was not sent: the call's deadline had passed.`,
            0,
            { deadlineReached: true },
          );
        }
        try {
          return await attempt(request, target, display);
        } catch (error) {
          if (request.signal?.aborted) throw request.signal.reason;
          const retryable =
            isRetryableError(error, request.idempotent) ||
            (ApiError.isInstance(error) && (request.retryStatuses ?? []).includes(error.status));
          if (retry >= retries || !retryable) throw error;
          if (request.retryRateLimited === false && ApiError.isInstance(error) && error.status === 429)
            throw error;
          const delayMs = computeBackoffMs(retry + 1, {
            baseDelayMs,
            maxDelayMs,
            retryAfterMs: retryAfterOf(error),
            random: options.random,
          });
          // A pause that would end past the deadline ends the call now, with the failure that asked for it.
          if (request.deadline !== undefined && Date.now() + delayMs >= request.deadline) throw error;
          request.onRetry?.({ attempt: retry + 1, delayMs, error });
          await sleep(delayMs, request.signal);
        }
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await ownAgent?.close();
    },
  };
}

function retryAfterOf(error: unknown): number | undefined {
  if (PolymodalError.isInstance(error) && 'retryAfterMs' in error) {
    const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
    return typeof value === 'number' ? value : undefined;
  }
  return undefined;
}

function queryString(query: RequestOptions<unknown>['query']): string {
  if (!query) return '';
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) parameters.append(name, String(value));
  }
  const text = parameters.toString();
  return text === '' ? '' : `?${text}`;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
  }
}

/**
 * Reads a body as UTF-8. Always drains it to the end so the connection can be reused; past `limit`
 * bytes it either fails (`strict`, for bodies we must parse) or keeps only the head (error bodies).
 */
async function readText(body: AsyncIterable<Uint8Array>, limit: number, strict: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    const buffer = Buffer.from(chunk);
    if (kept + buffer.length > limit) {
      if (strict) throw new BodyTooLargeError(limit);
      chunks.push(buffer.subarray(0, Math.max(0, limit - kept)));
      kept = limit;
      continue;
    }
    chunks.push(buffer);
    kept += buffer.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Finds the first `code` in an error, its causes and aggregated errors (happy-eyeballs attempts). */
function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors)) {
    for (const inner of record.errors) {
      const code = errorCode(inner, depth + 1);
      if (code) return code;
    }
  }
  return errorCode(record.cause, depth + 1);
}

function toConnectionError(
  error: unknown,
  method: string,
  display: string,
  redact: (text: string) => string,
): ConnectionError {
  const code = errorCode(error);
  const requestMayHaveArrived = !(code !== undefined && NEVER_ARRIVED_CODES.has(code));
  const reason = redact(error instanceof Error ? error.message : String(error));
  const advice = requestMayHaveArrived
    ? 'The connection broke after the request was sent, so the platform may have acted on it; check the ' +
      'state before repeating an operation that creates work.'
    : 'The platform could not be reached (nothing was sent); check POLYMODAL_BASE_URL and the network.';
  return new ConnectionError(
    `${method} ${display} failed: ${reason}${code && !reason.includes(code) ? ` (${code})` : ''}. ${advice}`,
    { requestMayHaveArrived, ...(code === undefined ? {} : { code }), cause: error },
  );
}
