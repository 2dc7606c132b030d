/**
 * One HTTP request through the sandbox: route match (404/405), counting and logging, faults (latency,
 * status, reset before/after, truncate, auth unavailable, hang), the handler, then the answer. Handlers
 * return a response object so that faults apply to every route the same way. Control routes (under
 * `/__sandbox/`) are never counted, logged or faulted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { abortableDelay } from './abortable-delay.js';
import type { FaultRule } from './fault-rule.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';
import type { RequestContext } from './request-context.js';
import type { LoggedRequest } from './request-log.js';
import type { RouteMatch } from './router.js';
import type { SandboxResponse } from './sandbox-response.js';
import { errorResponse, faultResponse, resetSocket, sendResponse } from './send-response.js';
import { arrival, authenticateLogged, type ServerDeps } from './server-deps.js';

export const CONTROL_PREFIX = '/__sandbox/';

/** Resolves when the signal aborts: a hung request ends only when its client or the sandbox goes away. */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  method: string;
  url: URL;
  match: RouteMatch;
  /** Aborts when the client goes away or the sandbox closes. */
  signal: AbortSignal;
}

/** What the faults left for the handler: the fault that acts later, a Retry-After to add, the log entry. */
interface Admitted {
  fault: FaultRule | undefined;
  retryAfter: string | undefined;
  logged: LoggedRequest | undefined;
}

/** A URL that does not parse is a 400, logged without its query string (it may carry an api_key). */
async function answerMalformedUrl(
  deps: ServerDeps,
  exchange: Pick<Exchange, 'request' | 'response' | 'method'> & { arrived: { at: number; clockAt: number } },
): Promise<void> {
  const { request, response, method, arrived } = exchange;
  const logged = deps.options.requestLog.record({
    method,
    path: (request.url ?? '/').split('?')[0] ?? '/',
    route: `${method} (unknown route)`,
    ...arrived,
  });
  const answer = errorResponse(new HttpError(400, 'malformed request URL'));
  await sendResponse({ request, response, answer, fault: undefined, logged });
}

/**
 * Counts and logs the request, then applies the faults that act before the handler. Undefined when a
 * fault already ended the request (reset, hang, simulated status) or its client went away.
 */
async function admit(
  deps: ServerDeps,
  exchange: Exchange,
  arrived: { at: number; clockAt: number },
): Promise<Admitted | undefined> {
  const { options } = deps;
  const { request, response, method, url, match, signal } = exchange;
  options.counters.increment('requests', match.routeKey);
  const logged = options.requestLog.record({ method, path: url.pathname, route: match.routeKey, ...arrived });
  const decision = options.faults.decide(method, url.pathname);
  if (decision.latencyMs > 0) await abortableDelay(decision.latencyMs, signal);
  if (signal.aborted) return undefined;
  const fault = decision.terminal;
  if (fault?.kind === 'reset-before') {
    resetSocket(request.socket);
    return undefined;
  }
  if (fault?.kind === 'hang') {
    // The handler never runs and nothing is sent; close() destroys the connection, so it cannot wait.
    await untilAborted(signal);
    return undefined;
  }
  if (fault?.kind === 'status') {
    await sendResponse({ request, response, answer: faultResponse(fault), fault: undefined, logged });
    return undefined;
  }
  return { fault, retryAfter: decision.retryAfter, logged };
}

/** The handler's answer; an error it throws becomes its status, anything else a 500. */
async function runHandler(
  deps: ServerDeps,
  exchange: Exchange,
  admitted: Admitted,
): Promise<SandboxResponse> {
  const { request, method, url, match, signal } = exchange;
  try {
    if (match.kind === 'not-found') {
      throw new HttpError(404, `no such route: ${method} ${url.pathname}`);
    }
    if (match.kind === 'method-not-allowed') {
      throw new HttpError(405, `method ${method} not allowed here; allowed: ${match.allow.join(', ')}`, {
        headers: { allow: match.allow.join(', ') },
      });
    }
    const unavailable = admitted.fault?.kind === 'auth-unavailable';
    const context: RequestContext = {
      request,
      method,
      url,
      params: match.params,
      routeKey: match.routeKey,
      signal,
      authenticate: authenticateLogged(
        (schemes) => deps.options.authenticator.authenticate(request, url, { schemes, unavailable }),
        admitted.logged,
      ),
      readJson: (maxBytes) => readJsonBody(request, maxBytes),
    };
    return await match.handler(context);
  } catch (error) {
    if (HttpError.isInstance(error)) return errorResponse(error);
    deps.onError(error);
    return errorResponse(new HttpError(500, 'internal error in the sandbox'));
  }
}

export async function dispatchRequest(
  deps: ServerDeps,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const arrived = arrival(deps);
  const method = (request.method ?? 'GET').toUpperCase();
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://sandbox.invalid');
  } catch {
    await answerMalformedUrl(deps, { request, response, method, arrived });
    return;
  }
  const requestAbort = new AbortController();
  response.on('close', () => requestAbort.abort());
  const signal = AbortSignal.any([requestAbort.signal, deps.closing]);

  const isControl = url.pathname.startsWith(CONTROL_PREFIX);
  deps.options.beforeRequest();
  const router = isControl ? deps.options.controlRouter : deps.options.router;
  const match = router.match(method, url.pathname);
  const exchange: Exchange = { request, response, method, url, match, signal };

  const admitted: Admitted | undefined = isControl
    ? { fault: undefined, retryAfter: undefined, logged: undefined }
    : await admit(deps, exchange, arrived);
  if (!admitted) return;
  let answer = await runHandler(deps, exchange, admitted);
  const { fault, retryAfter, logged } = admitted;
  if (retryAfter !== undefined && answer.status < 400) {
    answer = { ...answer, headers: { ...answer.headers, 'retry-after': retryAfter } };
  }
  if (response.destroyed || request.socket.destroyed) return;
  await sendResponse({
    request,
    response,
    answer,
    fault: fault?.kind === 'auth-unavailable' ? undefined : fault,
    logged,
  });
}
