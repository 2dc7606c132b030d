/**
 * The retry policy in one place. A repeated request must not do paid work twice, so what may be retried
 * depends on whether the request is idempotent and on whether the server can have seen it.
 */
import { ApiError } from '../errors/api-error.js';
import { ConnectionError, ResponseValidationError, TimeoutError } from '../errors/polymodal-error.js';

/**
 * - idempotent: connection failures, timeouts, cut-off or non-JSON 2xx bodies, 429 and 5xx except 501.
 * - not idempotent (job-creating POSTs, actions): only when the request provably never arrived
 *   (connection refused, DNS failure) or on an explicit 429 (the server declined to act).
 */
export function isRetryableError(error: unknown, idempotent: boolean): boolean {
  if (ConnectionError.isInstance(error)) return idempotent || !error.requestMayHaveArrived;
  if (ApiError.isInstance(error)) {
    if (error.status === 429) return true;
    return idempotent && error.status >= 500 && error.status !== 501;
  }
  if (TimeoutError.isInstance(error)) return idempotent;
  if (ResponseValidationError.isInstance(error)) return idempotent && error.retryable;
  return false;
}
