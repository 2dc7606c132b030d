/**
 * HTTP errors, one class per status of the spec's error tables. The message starts with what failed and
 * says what to do next; the server's `{error: string}` text is kept in `serverMessage`.
 */
import { PolymodalError } from './polymodal-error.js';

export interface ApiErrorOptions {
  status: number;
  method: string;
  /** Request URL without credentials or query secrets. */
  url: string;
  /** Parsed JSON body when there was one, else the raw text (truncated). */
  body: unknown;
  /** `error` field of a `{error: string}` body. */
  serverMessage?: string | undefined;
  /** Milliseconds from a Retry-After header, when present and sane. */
  retryAfterMs?: number | undefined;
  headers?: Record<string, string> | undefined;
}

const HINTS: Record<number, string> = {
  400: 'Fix the request (invalid input or invalid/expired upload receipt) and send it again.',
  401: 'Check POLYMODAL_API_KEY: the key is missing, invalid, revoked or expired.',
  402: 'Add credits to the account, or process a shorter recording.',
  403: 'This feature is not available to this account.',
  404: 'The resource does not exist or belongs to another user; check the id.',
  409: 'The job is not in a state that allows this operation; read its status first.',
  413: 'The upload exceeds the size or duration limit; shorten or compress it.',
  429: 'Too many requests; wait for the time the server asked, then try again.',
  500: 'The platform failed to process the request; try again later.',
  503: 'The platform is temporarily unavailable; try again shortly.',
};

export class ApiError extends PolymodalError {
  override readonly kind: string = 'api';
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
  readonly serverMessage: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly headers: Record<string, string>;
  /** Whether repeating the identical request could succeed (429 and 5xx). */
  readonly retryable: boolean;

  constructor(options: ApiErrorOptions) {
    const hint = HINTS[options.status] ?? (options.status >= 500 ? HINTS[500] : 'Check the request.');
    const detail = options.serverMessage ? `: ${options.serverMessage}` : '';
    super(`${options.method} ${options.url} failed with HTTP ${options.status}${detail}. ${hint}`);
    this.status = options.status;
    this.method = options.method;
    this.url = options.url;
    this.body = options.body;
    this.serverMessage = options.serverMessage;
    this.retryAfterMs = options.retryAfterMs;
    this.headers = options.headers ?? {};
    this.retryable = options.status === 429 || options.status >= 500;
  }

  static override isInstance(value: unknown): value is ApiError {
    return (
      PolymodalError.isInstance(value) && typeof (value as ApiError).status === 'number' && 'method' in value
    );
  }
}

export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class InsufficientCreditsError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class PayloadTooLargeError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InternalServerError extends ApiError {}
export class ServiceUnavailableError extends ApiError {}

/** Builds the error class that matches an HTTP status. */
export function createApiError(options: ApiErrorOptions): ApiError {
  switch (options.status) {
    case 400:
      return new BadRequestError(options);
    case 401:
      return new AuthenticationError(options);
    case 402:
      return new InsufficientCreditsError(options);
    case 403:
      return new PermissionDeniedError(options);
    case 404:
      return new NotFoundError(options);
    case 409:
      return new ConflictError(options);
    case 413:
      return new PayloadTooLargeError(options);
    case 429:
      return new RateLimitError(options);
    case 503:
      return new ServiceUnavailableError(options);
    default:
      return options.status >= 500 ? new InternalServerError(options) : new ApiError(options);
  }
}
