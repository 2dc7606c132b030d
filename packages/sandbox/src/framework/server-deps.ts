/**
 * What the request and upgrade handlers of the sandbox server share: its options, the error sink, the
 * signal that aborts when the server closes, and the steps both take for every request (the arrival
 * time, and authentication that notes the user in the request's log entry).
 */
import type { WebSocketServer } from 'ws';
import type { Authenticator, KeyScheme, Principal } from './authenticator.js';
import type { Clock } from './clock.js';
import type { CounterRegistry } from './counters.js';
import type { FaultEngine } from './fault-engine.js';
import type { LoggedRequest, RequestLog } from './request-log.js';
import type { Router } from './router.js';

export interface SandboxServerOptions {
  router: Router;
  /** Routes of the control surface (under `/__sandbox/`): never faulted, never counted, no auth. */
  controlRouter: Router;
  faults: FaultEngine;
  counters: CounterRegistry;
  /** Every request and upgrade outside the control routes is appended here. */
  requestLog: RequestLog;
  /** The sandbox clock, read for each request's `clockAt`. */
  clock: Clock;
  authenticator: Authenticator;
  /** Runs before each request (brings lazily computed state up to the clock). */
  beforeRequest(): void;
  /** Unexpected handler errors (answered as 500); the default writes one line to stderr. */
  onError?: (error: unknown) => void;
}

export interface ServerDeps {
  options: SandboxServerOptions;
  onError: (error: unknown) => void;
  /** Aborts when the server closes: ends hung requests and delayed upgrades. */
  closing: AbortSignal;
  webSockets: WebSocketServer;
}

/** Taken first thing, so that a latency fault or a slow handler does not move a request's arrival. */
export function arrival(deps: ServerDeps): { at: number; clockAt: number } {
  return { at: Date.now(), clockAt: deps.options.clock.now() };
}

/** Authenticates and, on success, notes the user in the request's log entry. */
export function authenticateLogged(
  authenticate: (schemes: readonly KeyScheme[]) => Principal,
  logged: LoggedRequest | undefined,
): (schemes: readonly KeyScheme[]) => Principal {
  return (schemes) => {
    const principal = authenticate(schemes);
    if (logged) logged.user = principal.user.id;
    return principal;
  };
}
