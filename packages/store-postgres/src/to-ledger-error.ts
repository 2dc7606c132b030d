/**
 * A driver or database failure as core's `LedgerError`: what failed and what to check, at the redacted
 * location. The job engine turns it into a refusal before anything is paid.
 */
import { LedgerError } from '@polymodal/core/errors';
import { DATABASE_URL_VARIABLE, redactSecrets } from './describe-database-url.js';

/** Socket-level failures: the database could not be reached (or the connection dropped). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** How `pg` reports a connection that ended, timed out or was never made (it sets no code). */
const DRIVER_CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Connection ended|not queryable|Client was closed|Cannot use a pool after calling end/i;

export interface LedgerErrorContext {
  location: string;
  secrets: readonly string[];
}

export function toLedgerError(error: unknown, context: LedgerErrorContext): LedgerError {
  if (LedgerError.isInstance(error)) return error;
  const { location } = context;
  const code = codeOf(error);
  const reason = redactSecrets(reasonOf(error, code), context.secrets);
  let message: string;
  if (isConnectionFailure(error, code)) {
    message =
      `Could not reach PostgreSQL at ${location} (${reason}). Check that the database is running and ` +
      `reachable, and ${DATABASE_URL_VARIABLE}.`;
  } else if (code === '28P01' || code === '28000') {
    message = `PostgreSQL at ${location} refused the login (${reason}). Check the user and password in ${DATABASE_URL_VARIABLE}.`;
  } else if (code === '3D000') {
    message = `PostgreSQL at ${location} has no such database (${reason}). Create it, or fix ${DATABASE_URL_VARIABLE}.`;
  } else if (code === '42P01' || code === '3F000') {
    message =
      `The job ledger tables are missing at ${location} (${reason}). Run polymodal-migrate, or let the ` +
      'store apply its migrations at start.';
  } else if (code === '42501') {
    message = `PostgreSQL at ${location} denied the job ledger access (${reason}). Grant the user rights on its schema.`;
  } else {
    message = `PostgreSQL at ${location} failed a job ledger query (${reason}${code ? `, code ${code}` : ''}).`;
  }
  // The driver's error stays out of the chain: some of its fields echo connection settings.
  return new LedgerError(message, { location, cause: { code, message: reason } });
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  const inner = (error as { errors?: unknown[] } | undefined)?.errors?.[0];
  const innerCode = (inner as { code?: unknown } | undefined)?.code;
  return typeof innerCode === 'string' ? innerCode : undefined;
}

function reasonOf(error: unknown, code: string | undefined): string {
  if (error instanceof Error && error.message) return error.message;
  const inner = (error as { errors?: unknown[] } | undefined)?.errors?.[0];
  if (inner instanceof Error && inner.message) return inner.message;
  return code ?? String(error);
}

function isConnectionFailure(error: unknown, code: string | undefined): boolean {
  if (code && (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code))) return true;
  return error instanceof Error && DRIVER_CONNECTION_MESSAGES.test(error.message);
}
