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

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess, Polymodal } from '@polymodal/core';
import { defaultStateDir, resolveConfig } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import { createFileAccess } from '@polymodal/core/files';
import type { HttpClientOptions } from '@polymodal/core/http';
import { createJobLedger, type JobLedger } from '@polymodal/core/ledger';
import { classifyAddress } from '@polymodal/core/net';
import { DATABASE_URL_VARIABLE, describeDatabaseUrl } from '@polymodal/store-postgres/describe-database-url';
import { type CreditBudget, createCreditBudget } from '../budget/create-credit-budget.js';
import { CREDITS_PER_DAY_VARIABLE, readCreditsPerDay } from '../budget/read-credits-per-day.js';
import { TOOL_CALL_DEADLINE_SECONDS } from '../deadline/tool-deadline.js';
import { createLogger, type Logger, parseLogLevel } from '../logging/create-logger.js';
import type { PolymodalMetrics } from '../metrics/create-metrics.js';
import { processMetricsSink } from '../metrics/process-metrics-sink.js';
import { acquireSharedPostgresPool } from './acquire-shared-postgres-pool.js';
import { runBeforeFirstPlatformClient } from './before-first-platform-client.js';
import { createDeferredJobLedger } from './create-deferred-job-ledger.js';
import {
  type ClosableSpeechGovernor,
  createDeferredSpeechGovernor,
} from './create-deferred-speech-governor.js';
import { scopeJobsToLedger } from './scope-jobs-to-ledger.js';

/** Ways of serving several tenants: each tenant's context must then say whose entries it keeps. */
const TENANT_VARIABLES = ['POLYMODAL_TENANTS_FILE', 'POLYMODAL_OAUTH_ISSUER'];

export type ContextReadiness = { ok: true } | { ok: false; reason: string };

/**
 * Where the clients of a context run, which decides what their MCP roots and the refusals of paths may do:
 * - `stdio` (the default): the host that started the server, on this machine. Its roots widen what may be
 *   read, and a refusal names the server's readable directories.
 * - `loopback`: HTTP without authentication, which the runner serves on loopback only, so clients on this
 *   machine: their roots are honoured (with sessions), but a refusal names no server path, as for every
 *   HTTP caller.
 * - `remote`: authenticated HTTP. Roots name directories on the client's machine and never widen what
 *   this server reads; a refusal names no server path.
 */
export type ContextClients = 'stdio' | 'loopback' | 'remote';

export interface ServerContext {
  /**
   * The platform client, built by `loadPolymodal()` (every tool call of a Polymodal server awaits it first;
   * reading it before throws). A server that a host starts and lists but never calls does not load the
   * clients, their contracts and their HTTP code.
   */
  readonly polymodal: Polymodal;
  /** Loads and builds the platform client, once; resolves with it. */
  loadPolymodal(): Promise<Polymodal>;
  files: FileAccess;
  /** Where its clients run: whether their roots are honoured (see `ContextClients`). */
  readonly clients: ContextClients;
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
  /** The daily credit budget paid tools must pass before they upload or submit (no limit when unset). */
  budget: CreditBudget;
  /**
   * Whether paid work can be recorded now: the state directory writable (file store) or the database
   * answering (PostgreSQL). The reason never holds a path, a URL or a secret; the log has the details.
   */
  ready(): Promise<ContextReadiness>;
  /** Releases the platform client's connections (and the database's, with the PostgreSQL ledger). */
  close(): Promise<void>;
}

export interface ServerContextOptions {
  env?: NodeJS.ProcessEnv;
  /** Logger name, e.g. the server's package name. */
  name?: string;
  /** Overrides of the HTTP client used by the platform client (timeouts, retries). */
  http?: Partial<HttpClientOptions>;
  /** Where the clients of this context run (default `stdio`); see `ContextClients`. */
  clients?: ContextClients;
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
export function createServerContext(options: ServerContextOptions = {}): ServerContext {
  const env = options.env ?? process.env;
  const rawKey = env.POLYMODAL_API_KEY?.trim();
  // Redact whatever was configured, even a value the config check is about to refuse.
  const secrets = rawKey ? [rawKey] : [];
  const log = createLogger({
    name: options.name ?? 'polymodal',
    secrets,
    level: parseLogLevel(env.POLYMODAL_LOG_LEVEL) ?? 'info',
  });
  const config = resolveConfig({ env });
  if (!secrets.includes(config.apiKey)) {
    secrets.push(config.apiKey);
    log.addSecret(config.apiKey);
  }
  const concurrentSessions = parsePositiveInteger(
    env.POLYMODAL_TTS_CONCURRENT_SESSIONS,
    'POLYMODAL_TTS_CONCURRENT_SESSIONS',
    "the key policy's concurrentSessions",
  );
  const speechLeaseSeconds = parsePositiveInteger(
    env.POLYMODAL_SPEECH_LEASE_SECONDS,
    'POLYMODAL_SPEECH_LEASE_SECONDS',
    'seconds a speech slot of a replica that died stays taken, with POLYMODAL_DATABASE_URL',
  );
  const { ledger, speechGovernor, closeStore, checkLedger } = openStore({
    env,
    tenant: options.tenant,
    apiKey: config.apiKey,
    concurrentSessions,
    speechLeaseSeconds,
    log,
    addSecret: (secret) => {
      secrets.push(secret);
      log.addSecret(secret);
    },
  });
  const clients = options.clients ?? 'stdio';
  // Only a person at this machine is shown the server's directories when a path is refused.
  const files = createFileAccess({ env, revealPaths: clients === 'stdio' });
  const defaultCreditsPerDay = readCreditsPerDay(env);
  const budget = createCreditBudget({
    ledger,
    tenant: options.tenant,
    limit: () => {
      const own = options.creditsPerDay?.();
      if (own !== undefined) return { creditsPerDay: own, setting: 'budget.creditsPerDay' };
      return defaultCreditsPerDay === undefined
        ? undefined
        : { creditsPerDay: defaultCreditsPerDay, setting: CREDITS_PER_DAY_VARIABLE };
    },
    ...(options.clock ? { now: options.clock } : {}),
  });
  const toolDeadlineSeconds =
    parsePositiveInteger(
      env.POLYMODAL_TOOL_DEADLINE_SECONDS,
      'POLYMODAL_TOOL_DEADLINE_SECONDS',
      'seconds one tool call may take (hosts cut calls off at about 60 s)',
    ) ?? TOOL_CALL_DEADLINE_SECONDS;
  let pollIntervalMs = parsePositiveInteger(
    env.POLYMODAL_POLL_INTERVAL_MS,
    'POLYMODAL_POLL_INTERVAL_MS',
    'milliseconds between two reads of a job (tests against the sandbox only)',
  );
  if (pollIntervalMs !== undefined && !isLoopbackUrl(config.baseUrl)) {
    log.warning(
      'POLYMODAL_POLL_INTERVAL_MS is ignored: it is for tests against a sandbox on this machine, and the platform asks for its own polling intervals.',
    );
    pollIntervalMs = undefined;
  }
  let polymodal: Polymodal | undefined;
  let loading: Promise<Polymodal> | undefined;
  let closed: Promise<void> | undefined;
  const buildPolymodal = (createPolymodal: typeof import('@polymodal/core/client').createPolymodal) =>
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
      ...(pollIntervalMs === undefined ? {} : { pollIntervalMs, mediaPollIntervalMs: pollIntervalMs }),
      ...(speechGovernor
        ? { speech: { governor: speechGovernor } }
        : concurrentSessions === undefined
          ? {}
          : { speech: { concurrentSessions } }),
    });
  const loadPolymodal = () => {
    // One import and one client for every caller; an import that failed is tried again by the next call.
    runBeforeFirstPlatformClient();
    loading ??= import('@polymodal/core/client').then(
      ({ createPolymodal }) => {
        if (closed) throw new Error('This server context is closed: it builds no platform client any more.');
        if (!polymodal) {
          const built = buildPolymodal(createPolymodal);
          const sharedKey = options.sharedKey;
          polymodal = sharedKey ? scopeJobsToLedger(built, { ledger, isShared: sharedKey }) : built;
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
    get polymodal(): Polymodal {
      if (!polymodal) {
        throw new Error(
          'The platform client is built on first use: await context.loadPolymodal() before reading context.polymodal (the tool calls of a Polymodal server do).',
        );
      }
      return polymodal;
    },
    loadPolymodal,
    files,
    clients,
    ledger,
    secrets,
    hiddenDirs: () =>
      files.revealsPaths
        ? []
        : [
            ...new Set([
              ...files.allowedDirs(),
              files.outputDir,
              files.inputsDir,
              // The file store's directory, which a ledger refusal names (a database is named by URL).
              ...(path.isAbsolute(ledger.location) ? [ledger.location] : []),
            ]),
          ],
    log,
    toolDeadlineSeconds,
    budget,
    ready: checkLedger,
    close() {
      // The platform client first (if it was ever built): its tasks give their speech slots back before
      // the store closes.
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

interface OpenedStore {
  ledger: JobLedger;
  /** With PostgreSQL, the speech governor shared by every replica on the key; otherwise the client's own. */
  speechGovernor?: ClosableSpeechGovernor;
  closeStore: () => Promise<void>;
  checkLedger: () => Promise<ContextReadiness>;
}

interface StoreOptions {
  env: NodeJS.ProcessEnv;
  tenant: string | undefined;
  apiKey: string;
  concurrentSessions: number | undefined;
  /** How long a speech slot lives without renewal; undefined: the governor's default (30 s). */
  speechLeaseSeconds: number | undefined;
  log: Logger;
  addSecret: (secret: string) => void;
}

/**
 * The file store by default (zero setup); with POLYMODAL_DATABASE_URL the PostgreSQL store and speech
 * governor, checked now (a wrong URL stops the server at start) but loaded on first use, so that servers
 * not using them never load `pg` nor connect. Its password goes to the secrets: no result, error or log
 * line shows it.
 */
function openStore(options: StoreOptions): OpenedStore {
  const { env, tenant, log, addSecret } = options;
  const databaseUrl = env[DATABASE_URL_VARIABLE]?.trim();
  if (!databaseUrl) {
    const stateDir = defaultStateDir(env);
    return {
      ledger: createJobLedger({ env }),
      closeStore: async () => {},
      checkLedger: () => checkWritable(stateDir, log),
    };
  }
  const { location, secrets } = describeDatabaseUrl(databaseUrl);
  for (const secret of secrets) addSecret(secret);
  const tenantVariable = TENANT_VARIABLES.find((variable) => env[variable]?.trim());
  if (tenantVariable && tenant === undefined) {
    // Fail closed: a context serving tenants that does not say whose entries it keeps would write every
    // tenant's rows under one name, and list_jobs would show one tenant another's jobs.
    throw new ConfigError(
      DATABASE_URL_VARIABLE,
      `${DATABASE_URL_VARIABLE} with ${tenantVariable}: this server context was built without a tenant, so the ` +
        'PostgreSQL job ledger cannot keep its entries apart from other tenants. Unset one of them.',
    );
  }
  // Every context on this database (one per tenant) shares the process's one pool.
  const shared = acquireSharedPostgresPool(databaseUrl);
  const ledger = createDeferredJobLedger({
    location,
    load: async () => {
      const { createPostgresJobLedger } = await import('@polymodal/store-postgres');
      return createPostgresJobLedger({ pool: await shared.pool(), tenant: tenant ?? '', env });
    },
  });
  // Slots are counted per platform key across the cluster, whichever tenant or replica takes them.
  const speechGovernor = createDeferredSpeechGovernor({
    location,
    limit: options.concurrentSessions,
    load: async () => {
      const { createPostgresSpeechGovernor } = await import('@polymodal/store-postgres');
      return createPostgresSpeechGovernor({
        pool: await shared.pool(),
        apiKey: options.apiKey,
        ...(options.concurrentSessions === undefined ? {} : { limit: options.concurrentSessions }),
        ...(options.speechLeaseSeconds === undefined ? {} : { leaseMs: options.speechLeaseSeconds * 1000 }),
        log: { warn: (message) => log.warning(message) },
      });
    },
  });
  return {
    ledger,
    speechGovernor,
    closeStore: async () => {
      await Promise.all([speechGovernor.close(), ledger.close()]);
      await shared.release();
    },
    async checkLedger() {
      try {
        await ledger.ready();
        return { ok: true };
      } catch (error) {
        // The message names the database (password masked); the probe's answer names nothing.
        log.warning(`not ready: ${error instanceof Error ? error.message : String(error)}`);
        return { ok: false, reason: 'the job database is unreachable; see the server log' };
      }
    },
  };
}

/** Whether a file can be created in `dir` (created if missing); the reason never holds the path. */
async function checkWritable(dir: string, log: Logger): Promise<ContextReadiness> {
  const probe = path.join(
    dir,
    `.ready-${process.pid}-${process.getBuiltinModule('node:crypto').randomUUID()}`,
  );
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return { ok: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    log.warning(`not ready: cannot write in the state directory ${dir} (${code})`);
    return { ok: false, reason: `the state directory is not writable (${code}); see the server log` };
  }
}

function parsePositiveInteger(
  value: string | undefined,
  variable: string,
  meaning: string,
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new ConfigError(variable, `${variable} must be a whole number of at least 1 (${meaning}).`);
  }
  return parsed;
}

function isLoopbackUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || classifyAddress(host)?.range === 'loopback';
}
