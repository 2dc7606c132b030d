/**
 * A transport failure described for the caller: whether the request may have reached the platform (only
 * a refused connection or a failed DNS lookup proves it did not) decides what the message advises.
 */
import { ConnectionError } from '../errors/polymodal-error.js';

/** Transport failures that prove the request never reached the server. */
const NEVER_ARRIVED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export function toConnectionError(
  error: unknown,
  request: { method: string; display: string; redact: (text: string) => string },
): ConnectionError {
  const { method, display } = request;
  const code = errorCode(error);
  const requestMayHaveArrived = !(code !== undefined && NEVER_ARRIVED_CODES.has(code));
  const reason = request.redact(error instanceof Error ? error.message : String(error));
  const advice = requestMayHaveArrived
    ? 'The connection broke after the request was sent, so the platform may have acted on it; check the ' +
      'state before repeating an operation that creates work.'
    : 'The platform could not be reached (nothing was sent); check POLYMODAL_BASE_URL and the network.';
  return new ConnectionError(
    `${method} ${display} failed: ${reason}${code && !reason.includes(code) ? ` (${code})` : ''}. ${advice}`,
    { requestMayHaveArrived, ...(code === undefined ? {} : { code }), cause: error },
  );
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
