/**
 * The ledger's pages, as every store keeps them: newest first at the cost of the page, a cursor that goes on
 * where a page ended, filters by service and status, and what a page shows is the entry as it is now,
 * whoever wrote it last (this ledger, another process or replica, a person editing it by hand).
 */
import { describe, expect, it } from 'vitest';
import type { JobLedger, LedgerEntry, LedgerPageOptions } from '../../src/ledger/create-job-ledger.js';

/** What the paging tests need of a store besides an empty ledger. */
export interface LedgerAccess {
  /** Another ledger object on the same storage, as another process or replica opens it. */
  reopen(ledger: JobLedger): JobLedger | Promise<JobLedger>;
  /** Changes an entry's stored fields the way a person would, past the ledger's API. */
  editByHand(
    ledger: JobLedger,
    entry: LedgerEntry,
    fields: { lastStatus?: string; title?: string },
  ): Promise<void>;
}

const SECOND = 1000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');

/** Every page from the first, following `nextCursor`; `between` runs before each next page. */
async function allPages(
  ledger: JobLedger,
  options: Omit<LedgerPageOptions, 'cursor'>,
  between: (pageIndex: number) => Promise<void> = async () => undefined,
): Promise<LedgerEntry[][]> {
  const pages: LedgerEntry[][] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.page({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.entries);
    cursor = page.nextCursor;
    if (cursor !== undefined) await between(pages.length);
  } while (cursor !== undefined && pages.length < 1000);
  return pages;
}

async function insertAt(ledger: JobLedger, service: string, index: number, lastStatus = 'COMPLETED') {
  return ledger.insert({
    service,
    fingerprint: `${service}-${index}`,
    id: `${service}-job-${index}`,
    lastStatus,
    createdAt: new Date(BASE + index * 37 * 60 * SECOND).toISOString(),
  });
}

export function describeJobLedgerPaging(
  store: string,
  open: () => JobLedger | Promise<JobLedger>,
  access: LedgerAccess,
): void {
  describe(`job ledger pages: ${store}`, () => {
    it('pages newest first across days, each entry once, and says when no page follows', async () => {
      const ledger = await open();
      // 50 entries 37 minutes apart (about a day and a half), inserted out of order.
      for (const index of [...Array(50).keys()].sort((a, b) => ((a * 17) % 50) - ((b * 17) % 50))) {
        await insertAt(ledger, 'meeting', index);
      }
      const pages = await allPages(ledger, { limit: 7 });
      expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
      expect(pages.flat().map((entry) => entry.id)).toEqual(
        [...Array(50).keys()].reverse().map((index) => `meeting-job-${index}`),
      );
      const whole = await ledger.page({ limit: 50 });
      expect(whole.entries).toHaveLength(50);
      expect(whole.nextCursor).toBeUndefined();
      expect((await ledger.page({ limit: 49 })).nextCursor).toBeDefined();
      await expect(ledger.page({ limit: 5, cursor: 'not-a-cursor' })).rejects.toThrow(/cursor/);
    });

    it('visits every entry exactly once while entries are being added between pages', async () => {
      const ledger = await open();
      const other = await access.reopen(ledger);
      for (let index = 0; index < 40; index++) await insertAt(ledger, 'meeting', index);
      let added = 0;
      const pages = await allPages(ledger, { limit: 6 }, async () => {
        // New jobs (now), from this ledger and another writer, while a person pages back.
        await ledger.insert({
          service: 'meeting',
          fingerprint: `new-${added}`,
          id: null,
          lastStatus: 'SUBMITTING',
        });
        await other.insert({
          service: 'meeting',
          fingerprint: `other-${added}`,
          id: null,
          lastStatus: 'SUBMITTING',
        });
        added++;
      });
      const seen = pages.flat().map((entry) => entry.fingerprint);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...Array(40).keys()].reverse().map((index) => `meeting-${index}`));
      expect(added).toBeGreaterThan(5);
      // A new first page starts with them.
      expect((await ledger.page({ limit: 1 })).entries[0]?.lastStatus).toBe('SUBMITTING');
    });

    it('filters by service and by status, and pages on through the filter', async () => {
      const ledger = await open();
      for (let index = 0; index < 30; index++) {
        await insertAt(
          ledger,
          index % 3 === 0 ? 'video' : 'meeting',
          index,
          index % 5 === 0 ? 'FAILED' : 'COMPLETED',
        );
      }
      await insertAt(ledger, 'meeting', 30, 'PROCESSING');
      const ids = (pages: LedgerEntry[][]) => pages.flat().map((entry) => entry.id);
      expect(ids(await allPages(ledger, { limit: 4, services: ['video'] }))).toEqual(
        [27, 24, 21, 18, 15, 12, 9, 6, 3, 0].map((index) => `video-job-${index}`),
      );
      expect(ids(await allPages(ledger, { limit: 2, statuses: ['FAILED'] }))).toEqual(
        [25, 20, 15, 10, 5, 0].map((index) => `${index % 3 === 0 ? 'video' : 'meeting'}-job-${index}`),
      );
      expect(
        ids(
          await allPages(ledger, {
            limit: 3,
            services: ['meeting'],
            excludeStatuses: ['COMPLETED', 'FAILED'],
          }),
        ),
      ).toEqual(['meeting-job-30']);
      expect(ids(await allPages(ledger, { limit: 5, services: ['speech'] }))).toEqual([]);
    });

    it('shows an entry as it is now: written by another process or edited by hand just before', async () => {
      const ledger = await open();
      const other = await access.reopen(ledger);
      for (let index = 0; index < 3; index++) await insertAt(ledger, 'meeting', index, 'PROCESSING');
      // Seen once, so that a store keeping what it parsed has it.
      expect((await ledger.page({ limit: 3 })).entries.map((entry) => entry.lastStatus)).toEqual([
        'PROCESSING',
        'PROCESSING',
        'PROCESSING',
      ]);
      await other.update('meeting', 'meeting-2', { lastStatus: 'COMPLETED' });
      const handEdited = await ledger.findByFingerprint('meeting', 'meeting-1');
      if (!handEdited) throw new Error('entry missing');
      await access.editByHand(ledger, handEdited, { lastStatus: 'FAILED', title: 'Fixed by hand' });
      const { entries } = await ledger.page({ limit: 3 });
      expect(entries.map((entry) => [entry.lastStatus, entry.title ?? null])).toEqual([
        ['COMPLETED', null],
        ['FAILED', 'Fixed by hand'],
        ['PROCESSING', null],
      ]);
      expect((await ledger.list({ limit: 3 })).map((entry) => entry.lastStatus)).toEqual([
        'COMPLETED',
        'FAILED',
        'PROCESSING',
      ]);
    });
  });
}
