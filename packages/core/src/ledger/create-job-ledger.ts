/**
 * The job ledger: a durable local record of every paid job this installation started (upload receipt,
 * job id, last status), so that a crash, a host restart or a cut-off tool call never leads to uploading
 * or paying twice.
 *
 * Layout (no lock server, safe with several processes):
 *   <dir>/entries/<service>/<sha256(service, fingerprint)>.json   one entry per file, replaced atomically
 *   <dir>/by-id/<service>/<sha256(id)>                            name of the entry file holding that id
 * Every write is a temp file + rename, so readers never see a torn file; concurrent writers of the same
 * entry resolve to last-writer-wins. Writes within one process are serialised per entry so that
 * concurrent updates do not drop each other's fields.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../errors/index.js';
import { writeFileAtomic } from '../files/write-file-atomic.js';
import { defaultStateDir } from './default-state-dir.js';

export interface LedgerEntry {
  service: string;
  fingerprint: string;
  /** Job id once the job exists; null while only an upload receipt is known. */
  id: string | null;
  receipt?: string | undefined;
  /** ISO time the receipt was issued (receipts expire, 2 h for meetings). */
  receiptIssuedAt?: string | undefined;
  createdAt: string;
  updatedAt: string;
  lastStatus: string;
  title?: string | null;
  /** What was asked (file path, options), for humans and for resuming; never credentials. */
  request?: Record<string, unknown>;
}

export type LedgerRecordInput = Omit<LedgerEntry, 'createdAt' | 'updatedAt'> &
  Partial<Pick<LedgerEntry, 'createdAt'>>;

export interface JobLedger {
  readonly dir: string;
  /** Creates or replaces the entry of (service, fingerprint). */
  record(entry: LedgerRecordInput): Promise<LedgerEntry>;
  /** Merges `patch` into an existing entry; undefined when there is none. */
  update(service: string, fingerprint: string, patch: Partial<LedgerEntry>): Promise<LedgerEntry | undefined>;
  updateById(service: string, id: string, patch: Partial<LedgerEntry>): Promise<LedgerEntry | undefined>;
  findByFingerprint(service: string, fingerprint: string): Promise<LedgerEntry | undefined>;
  findById(service: string, id: string): Promise<LedgerEntry | undefined>;
  /** Newest first (by creation time). */
  list(options?: { service?: string; limit?: number }): Promise<LedgerEntry[]>;
}

export interface JobLedgerOptions {
  /** Ledger directory. Default `<defaultStateDir>/jobs`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

const StoredEntry = z.looseObject({
  service: z.string(),
  fingerprint: z.string(),
  id: z.string().nullable(),
  receipt: z.string().optional(),
  receiptIssuedAt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastStatus: z.string(),
  title: z.string().nullable().optional(),
  request: z.record(z.string(), z.unknown()).optional(),
});

const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function checkService(service: string): string {
  if (!SERVICE_NAME.test(service)) {
    throw new ValidationError(
      `Invalid service name for the job ledger: use letters, digits, ".", "_" or "-" (got ${JSON.stringify(service)}).`,
      [{ path: 'service', message: 'invalid service name' }],
    );
  }
  return service;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function createJobLedger(options: JobLedgerOptions = {}): JobLedger {
  const dir = path.resolve(options.dir ?? path.join(defaultStateDir(options.env), 'jobs'));
  const queues = new Map<string, Promise<unknown>>();

  const entryFile = (service: string, fp: string) =>
    path.join(dir, 'entries', checkService(service), `${sha256(`${service}\n${fp}`)}.json`);
  const indexFile = (service: string, id: string) =>
    path.join(dir, 'by-id', checkService(service), sha256(id));

  /** Runs `task` after every earlier task on the same key (this process only). */
  function serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  }

  async function ensureDir(directory: string): Promise<void> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
  }

  async function readEntry(file: string): Promise<LedgerEntry | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const parsed = StoredEntry.safeParse(JSON.parse(text));
      return parsed.success ? (parsed.data as LedgerEntry) : undefined;
    } catch {
      // A corrupt entry (edited by hand, disk trouble) is skipped rather than blocking all work.
      return undefined;
    }
  }

  async function writeEntry(entry: LedgerEntry): Promise<void> {
    const file = entryFile(entry.service, entry.fingerprint);
    await ensureDir(path.dirname(file));
    await writeFileAtomic(file, `${JSON.stringify(entry, null, 2)}\n`);
    if (entry.id) {
      const index = indexFile(entry.service, entry.id);
      await ensureDir(path.dirname(index));
      await writeFileAtomic(index, path.basename(file));
    }
  }

  async function findById(service: string, id: string): Promise<LedgerEntry | undefined> {
    let target: string | undefined;
    try {
      target = (await readFile(indexFile(service, id), 'utf8')).trim();
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (target && /^[0-9a-f]{64}\.json$/.test(target)) {
      const entry = await readEntry(path.join(dir, 'entries', service, target));
      if (entry?.id === id) return entry;
    }
    // Missing or stale index (e.g. written by a crashed process): fall back to a scan.
    const all = await listService(service);
    return all.find((entry) => entry.id === id);
  }

  async function listService(service: string): Promise<LedgerEntry[]> {
    const directory = path.join(dir, 'entries', checkService(service));
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const entries = await Promise.all(
      names
        .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
        .map((name) => readEntry(path.join(directory, name))),
    );
    return entries.filter((entry): entry is LedgerEntry => entry !== undefined && entry.service === service);
  }

  async function update(
    service: string,
    fp: string,
    patch: Partial<LedgerEntry>,
  ): Promise<LedgerEntry | undefined> {
    const file = entryFile(service, fp);
    return serialize(file, async () => {
      const existing = await readEntry(file);
      if (!existing) return undefined;
      const merged: LedgerEntry = {
        ...existing,
        ...withoutUndefined(patch),
        service,
        fingerprint: fp,
        createdAt: existing.createdAt,
        updatedAt: new Date().toISOString(),
      };
      await writeEntry(merged);
      return merged;
    });
  }

  return {
    dir,
    async record(input) {
      const file = entryFile(input.service, input.fingerprint);
      return serialize(file, async () => {
        const now = new Date().toISOString();
        const entry: LedgerEntry = {
          ...withoutUndefined(input),
          createdAt: input.createdAt ?? now,
          updatedAt: now,
        } as LedgerEntry;
        await writeEntry(entry);
        return entry;
      });
    },
    update,
    async updateById(service, id, patch) {
      const entry = await findById(service, id);
      return entry ? update(service, entry.fingerprint, patch) : undefined;
    },
    async findByFingerprint(service, fp) {
      return readEntry(entryFile(service, fp));
    },
    findById,
    async list(listOptions = {}) {
      let services: string[];
      if (listOptions.service !== undefined) {
        services = [checkService(listOptions.service)];
      } else {
        try {
          services = (await readdir(path.join(dir, 'entries'))).filter((name) => SERVICE_NAME.test(name));
        } catch (error) {
          if (isMissing(error)) return [];
          throw error;
        }
      }
      const entries = (await Promise.all(services.map((service) => listService(service)))).flat();
      entries.sort((a, b) => compareDesc(a.createdAt, b.createdAt) || compareDesc(a.updatedAt, b.updatedAt));
      return listOptions.limit === undefined ? entries : entries.slice(0, Math.max(0, listOptions.limit));
    },
  };
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
