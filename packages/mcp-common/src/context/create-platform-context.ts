/**
 * Everything a Polymodal MCP server needs, built once from the environment: the platform client, the
 * confined file access, the job ledger, the secrets to redact and a stderr logger.
 *
 * Environment: POLYMODAL_BASE_URL, POLYMODAL_API_KEY (required), POLYMODAL_STATE_DIR (job ledger),
 * POLYMODAL_DATABASE_URL (postgres://…: the job ledger in PostgreSQL instead, shared by server replicas;
 * one pool per process, shared by every tenant's context, each tenant seeing only its own entries; and
 * the speech governor there too, so that all replicas on one platform key stay within its limit together),
 * POLYMODAL_ALLOWED_DIRS (readable directories, path-delimiter separated), POLYMODAL_OUTPUT_DIR (where
 * exports are written), POLYMODAL_LOG_LEVEL (debug|info|warning|error), POLYMODAL_TTS_CONCURRENT_SESSIONS (the key's
 * concurrentSessions for speech synthesis, when known; otherwise learned from the first 429),
 * POLYMODAL_TOOL_DEADLINE_SECONDS (how long one tool call may take, default 50: hosts cut calls off at
 * about 60 s), POLYMODAL_CREDITS_PER_DAY (the daily credit budget per UTC day; unset: no limit),
 * POLYMODAL_SPEECH_LEASE_SECONDS (operations and tests tuning, with POLYMODAL_DATABASE_URL:
 * how long a speech slot of a replica that died stays taken, default 30), and, for tests against the sandbox only, POLYMODAL_POLL_INTERVAL_MS (the minimum time
 * between two reads of a job; ignored, with a warning, unless the platform is on a loopback address,
 * because the real platform asks for its own intervals).
 */

import path from 'node:path';
import type { FileAccess, Polymodal } from '@polymodal/core';
import { resolveConfig } from '@polymodal/core/config';
import { SPEECH_SYNTHESIS_SERVICE, serviceOf } from '@polymodal/core/constants';
import { createFileAccess } from '@polymodal/core/files';
import type { HttpClientOptions } from '@polymodal/core/http';
import type { JobLedger } from '@polymodal/core/ledger';
import { type CreditBudget, createCreditBudget } from '../budget/create-credit-budget.js';
import { CREDITS_PER_DAY_VARIABLE, readCreditsPerDay } from '../budget/read-credits-per-day.js';
import { createLogger, type Logger, parseLogLevel } from '../logging/create-logger.js';
import type { PolymodalMetrics } from '../metrics/create-metrics.js';
import { processMetricsSink } from '../metrics/process-metrics-sink.js';
import { runBeforeFirstPlatformClient } from './before-first-platform-client.js';
import type { Readiness } from './check-writable.js';
import { readContextSettings } from './context-settings.js';
import { openStore } from './open-store.js';
import { scopeJobsToLedger } from './scope-jobs-to-ledger.js';

/**
 * Where the callers (MCP clients) of a context run, which decides what their MCP roots and the refusals of paths may do:
 * - `stdio` (the default): the host that started the server, on this machine. Its roots widen what may be
 *   read, and a refusal names the server's readable directories.
 * - `loopback`: HTTP without authentication, which the runner serves on loopback only, so clients on this
 *   machine: their roots are honoured (with sessions), but a refusal names no server path, as for every
 *   HTTP caller.
 * - `remote`: authenticated HTTP. Roots name directories on the client's machine and never widen what
 *   this server reads; a refusal names no server path.
 */
export type ContextCallers = 'stdio' | 'loopback' | 'remote';

export interface PlatformContext {
  /**
   * The platform client, built by `loadClient()` (every tool call of a Polymodal server awaits it first;
   * reading it before throws). A server that a host starts and lists but never calls does not load the
   * clients, their contracts and their HTTP code.
   */
  readonly client: Polymodal;
  /** Loads and builds the platform client, once; resolves with it. */
  loadClient(): Promise<Polymodal>;
  files: FileAccess;
  /** Where its callers run: whether their roots are honoured (see `ContextCallers`). */
  readonly callers: ContextCallers;
  ledger: JobLedger;
  /** Values that must never appear in a result, an error or a log line. */
  secrets: string[];
  /**
   * Server directories a tool error must not name to this context's callers: none over stdio (a person on
   * this machine), and for HTTP callers every readable directory, the output and the inputs directory (a
   * message about a file in one names the file relative to it).
   */
  hiddenDirs(): string[];
  log: Logger;
  /** Seconds one tool call may take before it answers with what it has. */
  toolDeadlineSeconds: number;
  /** The least time between two reads of a job of `service` (what a host following it as a task is told). */
  jobReadIntervalMs(service: string): number;
  /** The daily credit budget paid tools must pass before they upload or submit (no limit when unset). */
  budget: CreditBudget;
  /**
   * Whether paid work can be recorded now: the state directory writable (file store) or the database
   * answering (PostgreSQL). The reason never holds a path, a URL or a secret; the log has the details.
   */
  ready(): Promise<Readiness>;
  /** Releases the platform client's connections (and the database's, with the PostgreSQL ledger). */
  close(): Promise<void>;
}

export interface PlatformContextOptions {
  env?: NodeJS.ProcessEnv;
  /** Logger name, e.g. the server's package name. */
  name?: string;
  /** Overrides of the HTTP client used by the platform client (timeouts, retries). */
  http?: Partial<HttpClientOptions>;
  /** Where the callers of this context run (default `stdio`); see `ContextCallers`. */
  callers?: ContextCallers;
  /**
   * The tenant this context serves (a server with a tenants file builds one context per tenant): with
   * the PostgreSQL ledger, its entries are kept under this id, apart from every other tenant's.
   */
  tenant?: string;
  /**
   * The tenant's own daily credit budget (`budget.creditsPerDay` in the tenants file), read on every paid
   * call so that a reload applies at once; when it gives none, POLYMODAL_CREDITS_PER_DAY applies.
   */
  creditsPerDay?: () => number | undefined;
  /** The budget's clock (epoch ms), which decides the UTC day; tests only. */
  clock?: () => number;
  /** Where the platform client reports its answers and jobs (default: the process's metrics). */
  metrics?: PolymodalMetrics;
  /**
   * Whether this tenant's platform key is shared with other tenants (read on every call, so a reload
   * applies at once): then a job is reached by id only when this context's ledger holds it (see
   * `scopeJobsToLedger`). Default: not shared (one caller per key, as over stdio).
   */
  sharedKey?: () => boolean;
}

/**
 * Builds the context, or throws the core `ConfigError` naming the variable to fix (never its value).
 */
export function createPlatformContext(options: PlatformContextOptions = {}): PlatformContext {
  const env = options.env ?? process.env;
  const rawKey = env.POLYMODAL_API_KEY?.trim();
  // Redact whatever was configured, even a value the config check is about to refuse.
  const secrets = rawKey ? [rawKey] : [];
  const log = createLogger({
    name: options.name ?? 'polymodal',
    secrets,
    level: parseLogLevel(env.POLYMODAL_LOG_LEVEL) ?? 'info',
  });
  const addSecret = (secret: string) => {
    if (secrets.includes(secret)) return;
    secrets.push(secret);
    log.addSecret(secret);
  };
  const config = resolveConfig({ env });
  addSecret(config.apiKey);
  const settings = readContextSettings(env, config.baseUrl, log);
  const store = openStore({
    env,
    tenant: options.tenant,
    apiKey: config.apiKey,
    ...settings,
    log,
    addSecret,
  });
  const { ledger } = store;
  const callers = options.callers ?? 'stdio';
  // Only a person at this machine is shown the server's directories when a path is refused.
  const files = createFileAccess({ env, revealPaths: callers === 'stdio' });
  const client = createPlatformClientLoader({
    build: (createPolymodal) =>
      createPolymodal({
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        env,
        ledger,
        files,
        logger: { warn: (message) => log.warning(message) },
        // Every tenant's context reports into the one process registry (labels never name the tenant).
        events: (options.metrics ?? processMetricsSink).events,
        ...(options.http ? { http: options.http } : {}),
        ...(settings.pollIntervalMs === undefined
          ? {}
          : { pollIntervalMs: settings.pollIntervalMs, mediaPollIntervalMs: settings.pollIntervalMs }),
        ...(store.speechGovernor
          ? { speech: { governor: store.speechGovernor } }
          : settings.concurrentSessions === undefined
            ? {}
            : { speech: { concurrentSessions: settings.concurrentSessions } }),
      }),
    ...(options.sharedKey ? { scope: { ledger, isShared: options.sharedKey } } : {}),
  });
  return {
    get client(): Polymodal {
      return client.built();
    },
    loadClient: client.load,
    files,
    callers,
    ledger,
    secrets,
    hiddenDirs: () => hiddenDirsOf(files, ledger),
    log,
    toolDeadlineSeconds: settings.toolDeadlineSeconds,
    // A job made here of other requests (a long speech) is read as often as its parts.
    jobReadIntervalMs: (service) =>
      settings.pollIntervalMs ?? serviceOf(service)?.pollIntervalMs ?? SPEECH_PART_READ_INTERVAL_MS,
    budget: createCreditBudget({
      ledger,
      tenant: options.tenant,
      limit: budgetLimit(readCreditsPerDay(env), options.creditsPerDay),
      ...(options.clock ? { now: options.clock } : {}),
    }),
    ready: store.checkLedger,
    // The platform client first (if it was ever built): its tasks give their speech slots back before
    // the store closes.
    close: () => client.close(store.closeStore),
  };
}

const SPEECH_PART_READ_INTERVAL_MS = serviceOf(SPEECH_SYNTHESIS_SERVICE).pollIntervalMs;

/** The tenant's own daily budget when it has one, else the server's (POLYMODAL_CREDITS_PER_DAY), else none. */
function budgetLimit(serverDefault: number | undefined, own: (() => number | undefined) | undefined) {
  return () => {
    const creditsPerDay = own?.();
    if (creditsPerDay !== undefined) return { creditsPerDay, setting: 'budget.creditsPerDay' };
    return serverDefault === undefined
      ? undefined
      : { creditsPerDay: serverDefault, setting: CREDITS_PER_DAY_VARIABLE };
  };
}

/** Every server directory a refusal must not name to a caller who is not at this machine. */
function hiddenDirsOf(files: FileAccess, ledger: JobLedger): string[] {
  if (files.revealsPaths) return [];
  return [
    ...new Set([
      ...files.allowedDirs(),
      files.outputDir,
      files.inputsDir,
      // The file store's directory, which a ledger refusal names (a database is named by URL).
      ...(path.isAbsolute(ledger.location) ? [ledger.location] : []),
    ]),
  ];
}

type CreatePolymodal = typeof import('@polymodal/core/client').createPolymodal;

/**
 * The platform client, imported and built on first use, once for every caller; an import that failed is
 * tried again by the next call. With a shared key, its job reads are scoped to the context's ledger.
 */
function createPlatformClientLoader(options: {
  build: (createPolymodal: CreatePolymodal) => Polymodal;
  scope?: Parameters<typeof scopeJobsToLedger>[1];
}) {
  let polymodal: Polymodal | undefined;
  let loading: Promise<Polymodal> | undefined;
  let closed: Promise<void> | undefined;
  const load = (): Promise<Polymodal> => {
    runBeforeFirstPlatformClient();
    loading ??= import('@polymodal/core/client').then(
      ({ createPolymodal }) => {
        if (closed) throw new Error('This server context is closed: it builds no platform client any more.');
        if (!polymodal) {
          const built = options.build(createPolymodal);
          polymodal = options.scope ? scopeJobsToLedger(built, options.scope) : built;
        }
        return polymodal;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    load,
    built(): Polymodal {
      if (!polymodal) {
        throw new Error(
          'The platform client is built on first use: await context.loadClient() before reading context.client (the tool calls of a Polymodal server do).',
        );
      }
      return polymodal;
    },
    close(closeStore: () => Promise<void>): Promise<void> {
      closed ??= (loading ?? Promise.resolve(undefined))
        .then(
          (built) => built?.close(),
          () => undefined,
        )
        .finally(closeStore);
      return closed;
    },
  };
}
