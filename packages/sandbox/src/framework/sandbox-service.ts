/**
 * The contract between the framework and a simulated service: a service registers its routes on the
 * router and keeps its own state; everything shared (accounts, auth, clock, counters, faults) comes in
 * through the context, so it exists once for all services.
 */
import type { ParsedSandboxConfig } from '../config/sandbox-config.js';
import type { Accounts } from './accounts.js';
import type { Clock } from './clock.js';
import type { CounterRegistry } from './counters.js';
import type { Router } from './router.js';

export interface ServiceContext {
  config: ParsedSandboxConfig;
  accounts: Accounts;
  clock: Clock;
  counters: CounterRegistry;
  /** Time scale of job progression: 10 = ten times faster. */
  speed: number;
  /** Directory for this sandbox's files (uploads); removed on close. */
  dataDir: string;
}

export interface SandboxService {
  readonly name: string;
  register(router: Router): void;
  /**
   * Brings lazily computed state up to the sandbox clock (e.g. charges jobs that completed since the last
   * look). Called before every request and before the control surface reads credits or counters.
   */
  settle(): void;
  /** Back to the state right after start (jobs, uploads, files). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export type ServiceFactory = (context: ServiceContext) => SandboxService;
