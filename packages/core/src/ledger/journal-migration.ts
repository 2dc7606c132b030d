/**
 * Brings a ledger directory written before the journals existed into them, once: every entry file is read
 * and noted in the created journal of its creation day and the written journal of its last write's day,
 * its job id's index mended if a process died before writing it, then `journal/layout.json` says the
 * journals are complete. Nothing is moved or rewritten, so an entry
 * keeps its file, its lock and its claim, and the order of the listing is the entries' own creation times.
 *
 * One process migrates, holding the layout file's lock; another process that finds the lock taken lists
 * by reading the directories meanwhile (correct, only slower), and every process notes its own writes in
 * the journals whether or not the migration is done, so an entry added during it is in them either way
 * (twice at most, which the reader folds into one). The migration yields to the event loop between
 * batches, so a server keeps answering during it.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeSmallFileAtomic } from '../files/write-file-atomic.js';
import { type EntryPaths, entryFileNames, readEntry } from './entry-files.js';
import { type EntryJournals, utcDayOf } from './entry-journals.js';
import type { EntryListing } from './entry-listing.js';
import type { EntryLocks } from './entry-locks.js';
import type { LedgerEntry } from './job-ledger.js';

export const JOURNAL_LAYOUT_VERSION = 1;
const BATCH = 500;

/** Whether the journals are complete: true once migrated (here or by another process), else migrates. */
export async function migrateToJournals(
  paths: EntryPaths,
  journals: EntryJournals,
  listing: EntryListing,
  locks: EntryLocks,
  mendIndex: (entry: LedgerEntry, file: string) => Promise<void>,
): Promise<boolean> {
  if (existsSync(journals.layoutFile)) return true;
  const held = await locks.tryHold(journals.layoutFile, async () => {
    if (existsSync(journals.layoutFile)) return;
    const created = new Map<string, Map<string, string[]>>();
    const written = new Map<string, Map<string, string[]>>();
    let read = 0;
    for (const service of listing.services()) {
      const directory = paths.serviceDir(service);
      for (const name of entryFileNames(directory)) {
        const file = path.join(directory, name);
        const entry = await readEntry(file);
        if (entry?.service === service) {
          // An earlier version indexed a job id after writing it: a process that died between the two
          // left an entry its id does not find. Every id is indexed before the journals count as complete.
          await mendIndex(entry, file);
          const createdMs = Date.parse(entry.createdAt);
          const updatedMs = Date.parse(entry.updatedAt);
          if (Number.isFinite(createdMs)) {
            push(created, service, utcDayOf(createdMs), `${entry.createdAt} ${service} ${name}`);
          }
          if (Number.isFinite(updatedMs)) {
            push(written, '', utcDayOf(updatedMs), `${service} ${name} ${updatedMs}`);
          }
        }
        if (++read % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (const [service, days] of created) {
      for (const [day, lines] of days) journals.append({ kind: 'created', service }, day, lines);
    }
    for (const [day, lines] of written.get('') ?? []) journals.append({ kind: 'written' }, day, lines);
    await writeLayout(journals, read);
  });
  return held !== undefined;
}

/** Records that the journals name every entry (`migrated` of them were read into them; 0 for a new ledger). */
export async function writeLayout(journals: EntryJournals, migrated: number): Promise<void> {
  await mkdir(path.dirname(journals.layoutFile), { recursive: true, mode: 0o700 });
  await writeSmallFileAtomic(
    journals.layoutFile,
    `${JSON.stringify({ version: JOURNAL_LAYOUT_VERSION, since: new Date().toISOString(), entries: migrated })}\n`,
  );
}

/** Adds `line` to the lines of `service` and `day`. */
function push(map: Map<string, Map<string, string[]>>, service: string, day: string, line: string): void {
  let days = map.get(service);
  if (!days) {
    days = new Map();
    map.set(service, days);
  }
  const lines = days.get(day);
  if (lines) lines.push(line);
  else days.set(day, [line]);
}
