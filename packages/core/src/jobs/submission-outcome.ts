/**
 * What the ledger says of a submission that has no job id (yet), and which failures prove that nothing was
 * created: only those let a submission be forgotten; any other one may have left a paid job behind.
 */
import { ApiError } from '../errors/api-error.js';
import { ConnectionError, PolymodalError } from '../errors/polymodal-error.js';

/** Ledger statuses of a submission that has no job id (yet). */
export const SUBMITTING = 'SUBMITTING';
export const UNKNOWN_OUTCOME = 'UNKNOWN';
export const NOT_CREATED = 'NOT_CREATED';

/** Whether a failed submission certainly created nothing. */
export function provesNotCreated(error: unknown): boolean {
  if (ApiError.isInstance(error)) return error.status < 500;
  if (ConnectionError.isInstance(error)) return !error.requestMayHaveArrived;
  // Our own checks (validation, configuration, ledger) fail before anything is sent; an abort or a
  // timeout may not.
  return (
    PolymodalError.isInstance(error) &&
    (error.kind === 'validation' || error.kind === 'config' || error.kind === 'ledger')
  );
}
