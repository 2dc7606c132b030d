/**
 * The one error type handlers throw to answer with an HTTP status: the server turns it into the
 * platform's error body `{error: string}` (plus any extra fields and headers a service needs).
 */
export interface HttpErrorOptions {
  /** Extra headers of the error response (e.g. `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** Extra fields of the error body beside `error` (some services add counts or limits). */
  fields?: Record<string, unknown>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly fields: Record<string, unknown>;

  constructor(status: number, message: string, options: HttpErrorOptions = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = options.headers ?? {};
    this.fields = options.fields ?? {};
  }

  static isInstance(value: unknown): value is HttpError {
    return value instanceof HttpError;
  }
}
