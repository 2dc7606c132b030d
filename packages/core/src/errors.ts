/**
 * `@polymodal/core/errors`: every error class core throws (the root exports the same), with nothing of the
 * clients: code that only catches or builds errors (an MCP server at start) imports these without loading
 * the clients and their contracts.
 */
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from './errors/api-error.js';
export {
  ConfigError,
  ConnectionError,
  JobFailedError,
  LedgerError,
  PollingTimeoutError,
  PolymodalError,
  PrivateAddressError,
  ResponseValidationError,
  StreamingError,
  SubmissionInProgressError,
  TimeoutError,
  UncertainSubmissionError,
  ValidationError,
} from './errors/polymodal-error.js';
