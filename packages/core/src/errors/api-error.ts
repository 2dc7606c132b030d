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

/**
 * A class per status, from one table (below). Each guard checks the status against that table: a subclass that inherited `ApiError.isInstance`
 * would accept any status, and a guard that decides "gone", "retry" or "paid" must never do that (a 503
 * taken for a 404 once made a recorded job look deleted, and the recording was paid for twice).
 */
function isApiErrorOf(value: unknown, errorClass: ApiErrorClass): boolean {
  return ApiError.isInstance(value) && apiErrorClassFor(value.status) === errorClass;
}

export class BadRequestError extends ApiError {
  static override isInstance(value: unknown): value is BadRequestError {
    return isApiErrorOf(value, BadRequestError);
  }
}
export class AuthenticationError extends ApiError {
  static override isInstance(value: unknown): value is AuthenticationError {
    return isApiErrorOf(value, AuthenticationError);
  }
}
export class InsufficientCreditsError extends ApiError {
  static override isInstance(value: unknown): value is InsufficientCreditsError {
    return isApiErrorOf(value, InsufficientCreditsError);
  }
}
export class PermissionDeniedError extends ApiError {
  static override isInstance(value: unknown): value is PermissionDeniedError {
    return isApiErrorOf(value, PermissionDeniedError);
  }
}
export class NotFoundError extends ApiError {
  static override isInstance(value: unknown): value is NotFoundError {
    return isApiErrorOf(value, NotFoundError);
  }
}
export class ConflictError extends ApiError {
  static override isInstance(value: unknown): value is ConflictError {
    return isApiErrorOf(value, ConflictError);
  }
}
export class PayloadTooLargeError extends ApiError {
  static override isInstance(value: unknown): value is PayloadTooLargeError {
    return isApiErrorOf(value, PayloadTooLargeError);
  }
}
export class RateLimitError extends ApiError {
  static override isInstance(value: unknown): value is RateLimitError {
    return isApiErrorOf(value, RateLimitError);
  }
}
/** Any 5xx except 503. */
export class InternalServerError extends ApiError {
  static override isInstance(value: unknown): value is InternalServerError {
    return isApiErrorOf(value, InternalServerError);
  }
}
export class ServiceUnavailableError extends ApiError {
  static override isInstance(value: unknown): value is ServiceUnavailableError {
    return isApiErrorOf(value, ServiceUnavailableError);
  }
}

type ApiErrorClass = new (options: ApiErrorOptions) => ApiError;

/** The one table from status to class: construction uses it, and each class's guard agrees with it. */
const CLASS_BY_STATUS: ReadonlyMap<number, ApiErrorClass> = new Map<number, ApiErrorClass>([
  [400, BadRequestError],
  [401, AuthenticationError],
  [402, InsufficientCreditsError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
  [429, RateLimitError],
  [503, ServiceUnavailableError],
]);

/** The class that matches an HTTP status (5xx without its own class: InternalServerError). */
export function apiErrorClassFor(status: number): ApiErrorClass {
  return CLASS_BY_STATUS.get(status) ?? (status >= 500 ? InternalServerError : ApiError);
}

/** Builds the error class that matches an HTTP status. */
export function createApiError(options: ApiErrorOptions): ApiError {
  const ErrorClass = apiErrorClassFor(options.status);
  return new ErrorClass(options);
}
