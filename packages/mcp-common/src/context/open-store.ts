/**
 * Where a server context keeps its job ledger (and, with PostgreSQL, the speech slots every replica on one
 * platform key shares): the file store in the state directory by default, or PostgreSQL when
 * POLYMODAL_DATABASE_URL is set. Also how the context answers its readiness probe for that store.
 */
import { defaultStateDir } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import { createJobLedger, type JobLedger } from '@polymodal/core/ledger';
import { DATABASE_URL_VARIABLE, describeDatabaseUrl } from '@polymodal/store-postgres/describe-database-url';
import type { Logger } from '../logging/create-logger.js';
import { acquireSharedPostgresPool } from './acquire-shared-postgres-pool.js';
import { checkWritable, type Readiness } from './check-writable.js';
import { createDeferredJobLedger } from './create-deferred-job-ledger.js';
import {
  type ClosableSpeechGovernor,
  createDeferredSpeechGovernor,
} from './create-deferred-speech-governor.js';

/** Ways of serving several tenants: each tenant's context must then say whose entries it keeps. */
const TENANT_VARIABLES = ['POLYMODAL_TENANTS_FILE', 'POLYMODAL_OAUTH_ISSUER'];

export interface OpenedStore {
  ledger: JobLedger;
  /** With PostgreSQL, the speech governor shared by every replica on the key; otherwise the client's own. */
  speechGovernor?: ClosableSpeechGovernor;
  closeStore: () => Promise<void>;
  checkLedger: () => Promise<Readiness>;
}

export interface StoreOptions {
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
export function openStore(options: StoreOptions): OpenedStore {
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
