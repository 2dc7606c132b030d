/**
 * What belongs to the HTTP request being handled, wherever its work goes (the SDK's handlers, the tools,
 * the platform client): its request id, which every log line written meanwhile carries, and the server's
 * drain signal, which makes a tool call that waits on a long job answer with its handle at once when the
 * server shuts down. Carried by AsyncLocalStorage, so no tool has to pass it along; outside a request
 * (stdio, startup) there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  /** The caller's well-formed `X-Request-Id`, or a fresh UUID. */
  requestId: string;
  /** Aborts when the server starts shutting down: waits end and answer with what they have. */
  draining?: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}

/** At most 128 characters of letters, digits, `.`, `_` and `-`: safe in a log line and a header. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The incoming `X-Request-Id` when well-formed (a proxy's id keeps its trace), otherwise a new UUID. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value)
    ? value
    : process.getBuiltinModule('node:crypto').randomUUID();
}
