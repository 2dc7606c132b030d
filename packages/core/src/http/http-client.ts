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
import { ApiError } from '../errors/api-error.js';
import { ConnectionError, PolymodalError, TimeoutError } from '../errors/polymodal-error.js';
import { guardEvents, type HttpMethod, type PolymodalEvents } from '../telemetry/polymodal-events.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import { type AttemptDeps, attemptRequest } from './attempt-request.js';
import { computeBackoffMs } from './compute-backoff-ms.js';
import { isRetryableError } from './is-retryable-error.js';
import { Agent } from './undici-parts.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;
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

/** The retry policy of one client: how many retries by default, and how long the pauses between them. */
interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: SleepFunction;
  random: (() => number) | undefined;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const apiKey = options.apiKey;
  // undici's own header/body timers are disabled: our per-attempt timeout covers the whole exchange, and
  // the header timer would otherwise run while a large upload is still being sent.
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });
  const attempt: AttemptDeps = {
    dispatcher: options.dispatcher ?? (ownAgent as Agent),
    ownAgent: ownAgent !== undefined,
    authHeaders: options.auth === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey },
    userAgent: options.userAgent ?? `polymodal-core node/${process.versions.node}`,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    events: guardEvents(options.events),
    redact: (text) => redactSecrets(text, [apiKey]),
  };
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    sleep: options.sleep ?? defaultSleep,
    random: options.random,
  };
  let closed = false;
  return {
    baseUrl,
    async request<T>(request: RequestOptions<T>): Promise<HttpResponse<T>> {
      if (closed) {
        throw new ConnectionError('The HTTP client is closed; create a new one.', {
          requestMayHaveArrived: false,
        });
      }
      return requestWithRetries({ attempt, policy, baseUrl }, request);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await ownAgent?.close();
    },
  };
}

/**
 * Sends a request, repeating it as the retry policy allows: only what `isRetryableError` says may be
 * repeated (or a status the request names), never past `maxRetries`, and never a pause that would end
 * past the call's deadline — the failure that asked for it is thrown instead.
 */
async function requestWithRetries<T>(
  client: { attempt: AttemptDeps; policy: RetryPolicy; baseUrl: string },
  request: RequestOptions<T>,
): Promise<HttpResponse<T>> {
  const { policy } = client;
  if (!request.path.startsWith('/')) {
    throw new TypeError(`Request path must start with "/": ${request.path}`);
  }
  const display = request.path + queryString(request.query);
  const target = { url: client.baseUrl + display, display };
  const retries = request.maxRetries ?? policy.maxRetries;
  for (let retry = 0; ; retry++) {
    request.signal?.throwIfAborted();
    if (request.deadline !== undefined && Date.now() >= request.deadline) {
      throw new TimeoutError(
        `${request.method} ${display} was not sent: the call's deadline had passed.`,
        0,
        {
          deadlineReached: true,
        },
      );
    }
    try {
      return await attemptRequest(client.attempt, request, target);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      const retryable =
        isRetryableError(error, request.idempotent) ||
        (ApiError.isInstance(error) && (request.retryStatuses ?? []).includes(error.status));
      if (retry >= retries || !retryable) throw error;
      if (request.retryRateLimited === false && ApiError.isInstance(error) && error.status === 429)
        throw error;
      const delayMs = computeBackoffMs(retry + 1, {
        baseDelayMs: policy.baseDelayMs,
        maxDelayMs: policy.maxDelayMs,
        retryAfterMs: retryAfterOf(error),
        random: policy.random,
      });
      // A pause that would end past the deadline ends the call now, with the failure that asked for it.
      if (request.deadline !== undefined && Date.now() + delayMs >= request.deadline) throw error;
      request.onRetry?.({ attempt: retry + 1, delayMs, error });
      await policy.sleep(delayMs, request.signal);
    }
  }
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
