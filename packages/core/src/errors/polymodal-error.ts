/**
 * Error hierarchy of the Polymodal client. Every error carries a brand so that `isInstance` works even
 * when pnpm installs two copies of this package (then `instanceof` would lie).
 */
const BRAND = Symbol.for('polymodal.error');

export class PolymodalError extends Error {
  readonly [BRAND] = true;
  /** A short machine-readable kind, stable across versions (`api`, `connection`, `timeout`, ...). */
  readonly kind: string = 'polymodal';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  static isInstance(value: unknown): value is PolymodalError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Bad configuration: missing or malformed base URL or key. Never includes the key itself. */
export class ConfigError extends PolymodalError {
  override readonly kind = 'config';
  /** The environment variable or option that is wrong. */
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
  static override isInstance(value: unknown): value is ConfigError {
    return PolymodalError.isInstance(value) && value.kind === 'config';
  }
}

/** Input rejected before any network call (our own validation of a request or a local file). */
export class ValidationError extends PolymodalError {
  override readonly kind = 'validation';
  /** Dotted paths of the offending fields, when known. */
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, issues: readonly { path: string; message: string }[] = []) {
    super(message);
    this.issues = issues;
  }
  static override isInstance(value: unknown): value is ValidationError {
    return PolymodalError.isInstance(value) && value.kind === 'validation';
  }
}

/** The server answered with a body that does not match the contract. */
export class ResponseValidationError extends PolymodalError {
  override readonly kind = 'response-validation';
  readonly status: number;
  readonly url: string;
  /**
   * True when the body was cut off or was not JSON (a transport accident that a repeat may fix); false
   * when a complete JSON body does not match the contract (repeating gives the same answer).
   */
  readonly retryable: boolean;
  constructor(
    message: string,
    options: { status: number; url: string; cause?: unknown; retryable?: boolean },
  ) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.url = options.url;
    this.retryable = options.retryable ?? false;
  }
  static override isInstance(value: unknown): value is ResponseValidationError {
    return PolymodalError.isInstance(value) && value.kind === 'response-validation';
  }
}

/**
 * The request could not be completed at the transport level. `requestMayHaveArrived` is false only when
 * the failure proves the server never saw the request (connection refused, DNS failure); a reset or a
 * socket error after sending leaves it true, and a job-creating POST must then not be re-sent blindly.
 */
export class ConnectionError extends PolymodalError {
  override readonly kind = 'connection';
  readonly requestMayHaveArrived: boolean;
  readonly code: string | undefined;
  constructor(message: string, options: { requestMayHaveArrived: boolean; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.requestMayHaveArrived = options.requestMayHaveArrived;
    this.code = options.code;
  }
  static override isInstance(value: unknown): value is ConnectionError {
    return PolymodalError.isInstance(value) && value.kind === 'connection';
  }
}

/**
 * A single request exceeded its timeout, or the call's deadline came first (`deadlineReached`); never the
 * caller's abort, which is rethrown untouched.
 */
export class TimeoutError extends PolymodalError {
  override readonly kind = 'timeout';
  readonly timeoutMs: number;
  /** True when the call's deadline (not the per-attempt timeout) cut the request. */
  readonly deadlineReached: boolean;
  constructor(message: string, timeoutMs: number, options: { deadlineReached?: boolean } = {}) {
    super(message);
    this.timeoutMs = timeoutMs;
    this.deadlineReached = options.deadlineReached ?? false;
  }
  static override isInstance(value: unknown): value is TimeoutError {
    return PolymodalError.isInstance(value) && value.kind === 'timeout';
  }
}

/** A job reached a failed terminal state (for meetings: FAILED with errorMessage). */
export class JobFailedError extends PolymodalError {
  override readonly kind = 'job-failed';
  readonly service: string;
  readonly jobId: string;
  readonly status: string;
  readonly errorMessage: string | null;
  constructor(options: { service: string; jobId: string; status: string; errorMessage: string | null }) {
    super(
      `${options.service} job ${options.jobId} ended ${options.status}` +
        (options.errorMessage ? `: ${options.errorMessage}` : '') +
        '. Inspect the job, then retry it if the cause is temporary.',
    );
    this.service = options.service;
    this.jobId = options.jobId;
    this.status = options.status;
    this.errorMessage = options.errorMessage;
  }
  static override isInstance(value: unknown): value is JobFailedError {
    return PolymodalError.isInstance(value) && value.kind === 'job-failed';
  }
}

/** Polling stopped at its deadline while the job was still running. The job is still recorded. */
export class PollingTimeoutError extends PolymodalError {
  override readonly kind = 'polling-timeout';
  readonly service: string;
  readonly jobId: string;
  readonly lastStatus: string | undefined;
  constructor(options: { service: string; jobId: string; lastStatus?: string; waitedMs: number }) {
    super(
      `${options.service} job ${options.jobId} still ${options.lastStatus ?? 'running'} after ` +
        `${Math.round(options.waitedMs / 1000)} s; it keeps running on the platform. Wait on it again with its id.`,
    );
    this.service = options.service;
    this.jobId = options.jobId;
    this.lastStatus = options.lastStatus;
  }
  static override isInstance(value: unknown): value is PollingTimeoutError {
    return PolymodalError.isInstance(value) && value.kind === 'polling-timeout';
  }
}

/** Failure of a streaming (WebSocket) session. */
export class StreamingError extends PolymodalError {
  override readonly kind = 'streaming';
  readonly code: string | undefined;
  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
  static override isInstance(value: unknown): value is StreamingError {
    return PolymodalError.isInstance(value) && value.kind === 'streaming';
  }
}

/**
 * An earlier submission of the very same request was cut off after it may have reached the platform, and
 * the service offers no way to look it up. Submitting again could pay twice, so it is not done silently.
 */
export class UncertainSubmissionError extends PolymodalError {
  override readonly kind = 'uncertain-submission';
  readonly service: string;
  readonly since: string;
  constructor(options: { service: string; since: string; resubmitOption: string }) {
    super(
      `An identical ${options.service} request sent at ${options.since} was interrupted after it may have ` +
        'reached the platform, so a job may already exist (and be charged). It was not sent again. If you are ' +
        `sure no job was created, or accept paying twice, repeat with ${options.resubmitOption}.`,
    );
    this.service = options.service;
    this.since = options.since;
  }
  static override isInstance(value: unknown): value is UncertainSubmissionError {
    return PolymodalError.isInstance(value) && value.kind === 'uncertain-submission';
  }
}

/**
 * The call's time ran out while its submission (or an identical one it joined, here or in another process)
 * was still running, e.g. a long upload. The submission goes on; repeating the call joins it.
 */
export class SubmissionInProgressError extends PolymodalError {
  override readonly kind = 'submission-in-progress';
  readonly service: string;
  readonly since: string;
  constructor(options: { service: string; since: string }) {
    super(
      `An identical ${options.service} request is still being submitted (since ${options.since}); it goes on, ` +
        'and nothing was sent twice. Repeat the same call in a few seconds to follow it.',
    );
    this.service = options.service;
    this.since = options.since;
  }
  static override isInstance(value: unknown): value is SubmissionInProgressError {
    return PolymodalError.isInstance(value) && value.kind === 'submission-in-progress';
  }
}

/** The ledger could not be read or written; nothing paid was started because of it. */
export class LedgerError extends PolymodalError {
  override readonly kind = 'ledger';
  readonly location: string;
  constructor(message: string, options: { location: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.location = options.location;
  }
  static override isInstance(value: unknown): value is LedgerError {
    return PolymodalError.isInstance(value) && value.kind === 'ledger';
  }
}

/** A connection refused because the address is private, loopback or otherwise not public. */
export class PrivateAddressError extends PolymodalError {
  override readonly kind = 'private-address';
  readonly code = 'EPRIVATEADDRESS';
  readonly hostname: string;
  /** The address refused. */
  readonly address: string;
  /** `lookup`: the name resolved to it; `connect`: the socket reached it although the name was checked. */
  readonly stage: 'lookup' | 'connect';

  constructor(hostname: string, address: string, stage: 'lookup' | 'connect' = 'lookup') {
    super(
      stage === 'lookup'
        ? `${hostname} resolves to ${address}, a private, loopback or otherwise non-public network address; ` +
            'refusing to connect'
        : `the connection to ${hostname} reached ${address}, a private, loopback or otherwise non-public ` +
            'network address; refused before anything was sent',
    );
    this.hostname = hostname;
    this.address = address;
    this.stage = stage;
  }
  static override isInstance(value: unknown): value is PrivateAddressError {
    return PolymodalError.isInstance(value) && value.kind === 'private-address';
  }
}
