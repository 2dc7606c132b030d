/**
 * The file store's entries on disk: where an entry and its job-id index live, how an entry is read (a
 * corrupt or unreadable one is skipped, not fatal) and written (JSON, without undefined fields).
 *
 *   <dir>/entries/<service>/<sha256(service, fingerprint)>.json   one entry per file, replaced atomically
 *   <dir>/by-id/<service>/<sha256(id)>                            name of the entry file holding that id
 *
 * Reads are synchronous: the state directory is local and its files small, and a synchronous read costs a
 * few µs where an asynchronous one is four thread-pool round trips (open, fstat, read, close), the largest
 * CPU cost of a status read when measured.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../errors/polymodal-error.js';
import { nodeCrypto } from '../util/builtins.js';
import type { LedgerEntry } from './job-ledger.js';

export const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const StoredEntry = z.looseObject({
  service: z.string(),
  fingerprint: z.string(),
  id: z.string().nullable(),
  receipt: z.string().nullable().optional(),
  receiptIssuedAt: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastStatus: z.string(),
  title: z.string().nullable().optional(),
  request: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  claim: z.object({ owner: z.string(), expiresAt: z.string() }).nullable().optional(),
  lastReadAt: z.string().nullable().optional(),
  nextReadAt: z.string().nullable().optional(),
  readingUntil: z.string().nullable().optional(),
  // Only spaces reads: a value that cannot be one is dropped rather than making the entry unreadable.
  retryAfterFloorMs: z.number().nonnegative().nullable().optional().catch(undefined),
  pending: z
    .looseObject({
      lastStatus: z.string(),
      since: z.string(),
      receipt: z.string().nullable().optional(),
      receiptIssuedAt: z.string().nullable().optional(),
      title: z.string().nullable().optional(),
      request: z.record(z.string(), z.unknown()).optional(),
      data: z.record(z.string(), z.unknown()).optional(),
    })
    .nullable()
    .optional(),
  // Entries written before revisions existed start at 0.
  revision: z.number().int().min(0).default(0),
});

/** Where the entries of one ledger directory live. */
export class EntryPaths {
  constructor(readonly dir: string) {}

  entryFile(service: string, fingerprint: string): string {
    return path.join(
      this.dir,
      'entries',
      checkService(service),
      `${sha256(`${service}\n${fingerprint}`)}.json`,
    );
  }

  indexFile(service: string, id: string): string {
    return path.join(this.dir, 'by-id', checkService(service), sha256(id));
  }

  serviceDir(service: string): string {
    return path.join(this.dir, 'entries', checkService(service));
  }
}

export function checkService(service: string): string {
  if (!SERVICE_NAME.test(service)) {
    throw new ValidationError(
      `Invalid service name for the job ledger: use letters, digits, ".", "_" or "-" (got ${JSON.stringify(service)}).`,
      [{ path: 'service', message: 'invalid service name' }],
    );
  }
  return service;
}

/** The entry in `file`; undefined when there is none or it cannot be read as one. */
export async function readEntry(file: string): Promise<LedgerEntry | undefined> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
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

export function serializeEntry(entry: LedgerEntry): string {
  return `${JSON.stringify(withoutUndefined(entry), null, 2)}\n`;
}

/** The names in `directory`; none when it does not exist (yet). */
export function namesIn(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** The entry files' names in a service's directory (temp files, hidden, are not entries). */
export function entryFileNames(directory: string): string[] {
  return namesIn(directory).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/** Freezes `value` and every object in it (plain JSON data: objects and arrays). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}
