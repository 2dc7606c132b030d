/**
 * The file store's index: two append-only journals per UTC day, so that a page of the newest entries or
 * the entries written today cost what that page or that day holds, never the whole history.
 *
 *   <dir>/journal/created/<service>/<YYYY-MM-DD>.log   "<createdAt> <service> <entry name>" per entry created
 *   <dir>/journal/written/<YYYY-MM-DD>.log             "<service> <entry name> <ms>" per entry written then
 *
 * Created journals are per service, so that a server whose service has few jobs beside another's many
 * (two servers on one state directory) pages through its own days only.
 *   <dir>/journal/layout.json                 present once every entry of the directory is in the journals
 *
 * Why journals (measured against an index file per entry and against partitioning the entries by day): an
 * append is one `write` on a file opened with O_APPEND, which the kernel keeps whole against other
 * appenders on a local file system, so processes need no lock to note an entry; a reader keeps what it
 * parsed and reads only the bytes appended since; and the entry files stay where they are, so the claim
 * that keeps two processes from paying twice (an entry file linked into place) is the same for every
 * version of the store. Partitioning the entries themselves would have moved that claim.
 *
 * A line is noted before the write it describes, so the journals always name a superset of what exists:
 * a line whose entry is missing (a writer died between the two), or whose entry does not have the
 * creation time the line gives (another process won the insert), is skipped by the reader. Every append
 * starts with a newline, so a line torn by a crash is ended by the next append and skipped, not glued to it.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { isMissing, namesIn, SERVICE_NAME } from './entry-files.js';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.log$/;
const CREATED_LINE = /^(\S+) ([A-Za-z0-9][A-Za-z0-9._-]{0,63}) ([0-9a-f]{64}\.json)$/;
const WRITTEN_LINE = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}) ([0-9a-f]{64}\.json) (\d{1,16})$/;
/**
 * An entry written again is noted again once this long has passed since its last note: every write of an
 * entry then has a note at most this much older than the write, which bounds what a reader of "written
 * since T" reads to the notes from T minus this on (a job read every few seconds adds a line per interval).
 */
export const NOTE_EVERY_MS = 10 * 60 * 1000;
/** The most one append writes (whole lines; JSON-free ASCII, so characters are bytes). */
const APPEND_BYTES = 32 * 1024;
/** Parsed day files kept per journal (a page back through history reads older ones once each). */
const KEPT_DAYS = 64;

/** A created journal is per service; the written journal is one for all. */
export type Journal = { kind: 'created'; service: string } | { kind: 'written' };

/** A place in the newest-first order: creation time (epoch ms), then the entry's file name. */
export interface Position {
  ms: number;
  name: string;
}

/** Newest first: the later creation time first, then the greater name. */
export function comparePositions(a: Position, b: Position): number {
  return b.ms - a.ms || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

/** One entry as a created journal names it. */
export interface CreatedLine {
  /** The creation time noted, as epoch ms (the order of the listing), and as the entry holds it. */
  ms: number;
  createdAt: string;
  service: string;
  /** The entry's file name in `entries/<service>/`. */
  name: string;
}

/** What was parsed of one day file, and up to which byte of which file. */
interface DayFile {
  inode: bigint;
  offset: number;
  /** An incomplete last line waits for the rest of its bytes. */
  lines: string[];
  created?: CreatedLine[];
}

export const utcDayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class EntryJournals {
  private readonly days = new Map<string, DayFile>();
  private readonly madeDirs = new Set<string>();
  /** When this process last noted each entry it wrote (within NOTE_EVERY_MS; older notes are dropped). */
  private readonly noted = new Map<string, number>();

  constructor(readonly dir: string) {}

  get layoutFile(): string {
    return path.join(this.dir, 'journal', 'layout.json');
  }

  /** Notes that the entry `name` of `service` is being created at `createdAt`, in that day's journal. */
  noteCreated(service: string, name: string, createdAt: string): void {
    const ms = Date.parse(createdAt);
    this.append({ kind: 'created', service }, utcDayOf(Number.isFinite(ms) ? ms : Date.now()), [
      `${createdAt} ${service} ${name}`,
    ]);
  }

  /**
   * Notes that the entry is being written at `atMs`, unless this process noted it less than NOTE_EVERY_MS
   * before (on the same day).
   */
  noteWritten(service: string, name: string, atMs: number): void {
    const key = `${service} ${name}`;
    const last = this.noted.get(key);
    if (
      last !== undefined &&
      atMs - last < NOTE_EVERY_MS &&
      atMs >= last &&
      utcDayOf(last) === utcDayOf(atMs)
    ) {
      return;
    }
    this.append({ kind: 'written' }, utcDayOf(atMs), [`${key} ${atMs}`]);
    this.noted.delete(key);
    this.noted.set(key, atMs);
    // Oldest first: drop the notes too old to spare another.
    for (const [noted, at] of this.noted) {
      if (atMs - at < NOTE_EVERY_MS) break;
      this.noted.delete(noted);
    }
  }

  /**
   * Appends lines to one day's journal, whole lines per `write` and at most APPEND_BYTES each (a migration
   * notes a day's entries at once): a write that size is not split, so another process's lines never land
   * inside one of these.
   */
  append(journal: Journal, day: string, lines: readonly string[]): void {
    const directory = this.directoryOf(journal);
    const file = path.join(directory, `${day}.log`);
    let chunk = '';
    for (const line of lines) {
      if (chunk.length > 0 && chunk.length + line.length + 1 > APPEND_BYTES) {
        this.write(directory, file, chunk);
        chunk = '';
      }
      chunk += `\n${line}`;
    }
    if (chunk.length > 0) this.write(directory, file, chunk);
  }

  private write(directory: string, file: string, chunk: string): void {
    if (!this.madeDirs.has(directory)) {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      this.madeDirs.add(directory);
    }
    try {
      appendFileSync(file, `${chunk}\n`, { mode: 0o600 });
    } catch (error) {
      // The directory was removed meanwhile (by hand): made again, once.
      if (!isMissing(error)) throw error;
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      appendFileSync(file, `${chunk}\n`, { mode: 0o600 });
    }
  }

  /** The services that have created journals. */
  services(): string[] {
    return namesIn(path.join(this.dir, 'journal', 'created')).filter((name) => SERVICE_NAME.test(name));
  }

  /** The days a journal has, newest first. */
  daysOf(journal: Journal): string[] {
    return namesIn(this.directoryOf(journal))
      .flatMap((name) => DAY_FILE.exec(name)?.[1] ?? [])
      .sort()
      .reverse();
  }

  private directoryOf(journal: Journal): string {
    return journal.kind === 'created'
      ? path.join(this.dir, 'journal', 'created', journal.service)
      : path.join(this.dir, 'journal', 'written');
  }

  /** The service's entries created on `day`, newest first (creation time, then name), duplicates included. */
  created(service: string, day: string): readonly CreatedLine[] {
    const file = this.read({ kind: 'created', service }, day);
    if (!file) return [];
    file.created ??= file.lines
      .flatMap((line): CreatedLine[] => {
        const match = CREATED_LINE.exec(line);
        if (!match) return [];
        const [, createdAt = '', , name = ''] = match;
        const ms = Date.parse(createdAt);
        return Number.isFinite(ms) && match[2] === service ? [{ ms, createdAt, service, name }] : [];
      })
      .sort(comparePositions);
    return file.created;
  }

  /** The notes of entries written on `day`: service, entry name and the time of the write noted. */
  written(day: string): Array<{ service: string; name: string; ms: number }> {
    const file = this.read({ kind: 'written' }, day);
    return (file?.lines ?? []).flatMap((line) => {
      const match = WRITTEN_LINE.exec(line);
      return match?.[1] && match[2] && match[3]
        ? [{ service: match[1], name: match[2], ms: Number(match[3]) }]
        : [];
    });
  }

  /**
   * A day file's complete lines, reading only what was appended since the last read of the same file (a
   * replaced file, another inode, is read again whole).
   */
  private read(journal: Journal, day: string): DayFile | undefined {
    const file = path.join(this.directoryOf(journal), `${day}.log`);
    const key = file;
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const stats = fstatSync(fd, { bigint: true });
      let kept = this.days.get(key);
      if (kept?.inode !== stats.ino || Number(stats.size) < kept.offset) {
        kept = { inode: stats.ino, offset: 0, lines: [] };
      }
      this.days.delete(key);
      this.days.set(key, kept);
      if (this.days.size > KEPT_DAYS) this.days.delete(this.days.keys().next().value as string);
      const size = Number(stats.size);
      if (size === kept.offset) return kept;
      const bytes = Buffer.alloc(size - kept.offset);
      const read = readSync(fd, bytes, 0, bytes.length, kept.offset);
      const text = bytes.subarray(0, read).toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end < 0) return kept;
      const added = text.slice(0, end).split('\n').filter(Boolean);
      kept.offset += Buffer.byteLength(text.slice(0, end + 1));
      if (added.length > 0) {
        kept.lines = kept.lines.concat(added);
        kept.created = undefined;
      }
      return kept;
    } finally {
      closeSync(fd);
    }
  }
}
