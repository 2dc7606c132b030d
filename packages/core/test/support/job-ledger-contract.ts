/**
 * What every job ledger guarantees, whatever stores it: the file store of core and the PostgreSQL store run
 * this one suite (each adds the tests of its own storage: file permissions and corrupt files, or replicas,
 * migrations and connection strings). The job engine's claims and resumes rely on exactly these behaviours:
 * an atomic insert, compare-and-set on a revision, null clears and undefined leaves, lists newest first,
 * services kept apart, and service names safe for either store.
 */
import { describe, expect, it } from 'vitest';
import type { JobLedger } from '../../src/ledger/create-job-ledger.js';

/** Defines the shared tests; `open` returns an empty ledger of its own for each test. */
export function describeJobLedgerContract(store: string, open: () => JobLedger | Promise<JobLedger>): void {
  describe(`job ledger contract: ${store}`, () => {
    it('inserts, finds by fingerprint and by id, and updates', async () => {
      const ledger = await open();
      const { inserted, entry: recorded } = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp1',
        id: null,
        receipt: 'rcpt',
        receiptIssuedAt: '2025-01-01T00:00:00.000Z',
        lastStatus: 'UPLOADED',
        request: { file: '/x.wav', speakers: ['Ann', 'Bo'], nested: { ok: true } },
      });
      expect(inserted).toBe(true);
      expect(recorded.createdAt).toBe(recorded.updatedAt);
      expect(recorded.revision).toBe(1);
      expect(recorded.receiptIssuedAt).toBe('2025-01-01T00:00:00.000Z');
      expect(recorded.request).toEqual({ file: '/x.wav', speakers: ['Ann', 'Bo'], nested: { ok: true } });
      expect(await ledger.findByFingerprint('meeting', 'fp1')).toEqual(recorded);
      expect(await ledger.findById('meeting', 'job-1')).toBeUndefined();

      const updated = await ledger.update('meeting', 'fp1', { id: 'job-1', lastStatus: 'PENDING' });
      expect(updated).toMatchObject({
        id: 'job-1',
        receipt: 'rcpt',
        lastStatus: 'PENDING',
        createdAt: recorded.createdAt,
        revision: 2,
      });
      expect(await ledger.findById('meeting', 'job-1')).toEqual(updated);

      const byId = await ledger.updateById('meeting', 'job-1', { lastStatus: 'COMPLETED' });
      expect(byId?.lastStatus).toBe('COMPLETED');
      expect((await ledger.findByFingerprint('meeting', 'fp1'))?.lastStatus).toBe('COMPLETED');
      expect(await ledger.update('meeting', 'unknown', { lastStatus: 'X' })).toBeUndefined();
      expect(await ledger.updateById('meeting', 'no-such-job', { lastStatus: 'X' })).toBeUndefined();
    });

    it('keeps services apart and lists newest first with a limit', async () => {
      const ledger = await open();
      for (const [index, service] of ['meeting', 'speech', 'meeting'].entries()) {
        await ledger.insert({
          service,
          fingerprint: `fp${index}`,
          id: `id${index}`,
          lastStatus: 'PENDING',
          createdAt: `2025-01-0${index + 1}T00:00:00.000Z`,
        });
      }
      // The same fingerprint and job id in another service is another entry.
      await ledger.insert({
        service: 'speech',
        fingerprint: 'fp0',
        id: 'id0',
        lastStatus: 'OTHER',
        createdAt: '2024-12-01T00:00:00.000Z',
      });
      expect((await ledger.list()).map((entry) => entry.id)).toEqual(['id2', 'id1', 'id0', 'id0']);
      expect((await ledger.list({ service: 'meeting' })).map((entry) => entry.id)).toEqual(['id2', 'id0']);
      expect((await ledger.list({ limit: 1 })).map((entry) => entry.id)).toEqual(['id2']);
      expect(await ledger.list({ limit: 0 })).toEqual([]);
      expect((await ledger.findById('speech', 'id0'))?.lastStatus).toBe('OTHER');
      expect((await ledger.findById('meeting', 'id0'))?.lastStatus).toBe('PENDING');
      expect(await ledger.findById('speech', 'id2')).toBeUndefined();
      await ledger.updateById('speech', 'id0', { lastStatus: 'DONE' });
      expect((await ledger.findByFingerprint('meeting', 'fp0'))?.lastStatus).toBe('PENDING');
    });

    it('lists only the entries written at or after updatedSince, in every service', async () => {
      const ledger = await open();
      const old = await ledger.insert({
        service: 'meeting',
        fingerprint: 'old',
        id: 'o',
        lastStatus: 'PENDING',
      });
      await ledger.insert({ service: 'speech', fingerprint: 'old', id: 's', lastStatus: 'PENDING' });
      // A time after those writes: the clock (the store's, which may be a database's) is waited past it.
      const since = new Date(Date.parse(old.entry.updatedAt) + 5).toISOString();
      while (Date.now() <= Date.parse(since) + 5) await new Promise((resolve) => setTimeout(resolve, 5));
      await ledger.insert({ service: 'meeting', fingerprint: 'new', id: 'n', lastStatus: 'PENDING' });
      // An old entry written again is listed again.
      await ledger.updateById('speech', 's', { lastStatus: 'COMPLETED' });
      const listed = await ledger.list({ updatedSince: since });
      expect(listed.map((entry) => entry.id).sort()).toEqual(['n', 's']);
      expect((await ledger.list({ service: 'meeting', updatedSince: since })).map((e) => e.id)).toEqual([
        'n',
      ]);
      expect(await ledger.list()).toHaveLength(3);
      await expect(ledger.list({ updatedSince: 'yesterday' })).rejects.toThrow(/updatedSince/);
    });

    it('insert of an existing entry leaves it alone; of 20 concurrent inserters exactly one wins', async () => {
      const ledger = await open();
      const first = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: null,
        lastStatus: 'SUBMITTING',
      });
      const second = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: 'other',
        lastStatus: 'X',
      });
      expect(first.inserted).toBe(true);
      expect(second).toEqual({ inserted: false, entry: first.entry });

      const racing = await Promise.all(
        Array.from({ length: 20 }, (_unused, index) =>
          ledger.insert({ service: 'meeting', fingerprint: 'race', id: null, lastStatus: `caller-${index}` }),
        ),
      );
      const winners = racing.filter((result) => result.inserted);
      expect(winners).toHaveLength(1);
      const winner = winners[0]?.entry.lastStatus;
      // Every loser is told who won, and the ledger holds the winner's entry.
      expect(new Set(racing.map((result) => result.entry.lastStatus))).toEqual(new Set([winner]));
      expect((await ledger.findByFingerprint('meeting', 'race'))?.lastStatus).toBe(winner);
    });

    it('compare-and-set applies a patch only on the revision it was given; of 10 writers one wins', async () => {
      const ledger = await open();
      const { entry } = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: null,
        lastStatus: 'A',
      });
      const next = await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'B' });
      expect(next).toMatchObject({ lastStatus: 'B', revision: entry.revision + 1 });
      // A writer that read the old revision loses: its patch is not applied.
      expect(
        await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'C' }),
      ).toBeUndefined();
      expect((await ledger.findByFingerprint('meeting', 'fp'))?.lastStatus).toBe('B');

      const current = (await ledger.findByFingerprint('meeting', 'fp'))?.revision ?? 0;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_unused, index) =>
          ledger.compareAndSet('meeting', 'fp', current, { lastStatus: `writer-${index}` }),
        ),
      );
      const won = results.filter((result) => result !== undefined);
      expect(won).toHaveLength(1);
      expect(await ledger.findByFingerprint('meeting', 'fp')).toMatchObject({
        lastStatus: won[0]?.lastStatus,
        revision: current + 1,
      });
      expect(await ledger.compareAndSet('meeting', 'missing', 1, { lastStatus: 'X' })).toBeUndefined();
      expect(await ledger.compareAndSet('meeting', 'fp', 1.5, { lastStatus: 'X' })).toBeUndefined();
    });

    it('compare-and-set that need not be durable (a read reserved) keeps the same rules', async () => {
      const ledger = await open();
      const { entry } = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: 'j1',
        lastStatus: 'A',
      });
      const reservation = { lastReadAt: '2025-01-01T00:00:00.000Z', nextReadAt: '2025-01-01T00:00:05.000Z' };
      const reserved = await ledger.compareAndSet('meeting', 'fp', entry.revision, reservation, {
        durable: false,
      });
      expect(reserved).toMatchObject({
        ...reservation,
        id: 'j1',
        lastStatus: 'A',
        revision: entry.revision + 1,
      });
      expect(await ledger.findById('meeting', 'j1')).toEqual(reserved);
      // The revision it was given is gone: a second reservation of the same look loses, as a durable one would.
      expect(
        await ledger.compareAndSet('meeting', 'fp', entry.revision, reservation, { durable: false }),
      ).toBeUndefined();
    });

    it('null clears a field, undefined leaves it', async () => {
      const ledger = await open();
      await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: 'j',
        receipt: 'r',
        title: 'Weekly',
        lastStatus: 'FAILED',
        claim: { owner: 'host/1/a', expiresAt: '2030-01-01T00:00:00.000Z' },
        nextReadAt: '2030-01-01T00:00:05.000Z',
        data: { parts: [1, 2] },
      });
      // A restarted submission clears its old id and receipt, so it never reuses them.
      const cleared = await ledger.update('meeting', 'fp', {
        id: null,
        receipt: null,
        claim: null,
        nextReadAt: null,
        title: undefined,
      });
      expect(cleared).toMatchObject({
        id: null,
        receipt: null,
        claim: null,
        nextReadAt: null,
        title: 'Weekly',
      });
      expect(cleared?.data).toEqual({ parts: [1, 2] });
      expect(await ledger.findByFingerprint('meeting', 'fp')).toEqual(cleared);
      // A cleared id no longer finds the entry.
      expect(await ledger.findById('meeting', 'j')).toBeUndefined();
    });

    it('keeps a replacing submission beside the recorded job, and clears it with null', async () => {
      const ledger = await open();
      await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: 'j',
        receipt: 'r1',
        lastStatus: 'PROCESSING',
      });
      const pending = {
        lastStatus: 'UPLOADED',
        since: '2030-01-01T00:00:00.000Z',
        receipt: 'r2',
        receiptIssuedAt: '2030-01-01T00:00:01.000Z',
        request: { creditReservation: { day: '2030-01-01', credits: 24, basis: 'estimate' } },
      };
      const replacing = await ledger.update('meeting', 'fp', { pending });
      expect(replacing).toMatchObject({ id: 'j', receipt: 'r1', lastStatus: 'PROCESSING', pending });
      expect(await ledger.findById('meeting', 'j')).toEqual(replacing);
      const taken = await ledger.update('meeting', 'fp', { id: 'j2', receipt: 'r2', pending: null });
      expect(taken?.pending ?? null).toBeNull();
      expect(await ledger.findById('meeting', 'j2')).toMatchObject({ receipt: 'r2' });
    });

    it("keeps a job's Retry-After floor through later writes, and clears it with null", async () => {
      const ledger = await open();
      await ledger.insert({ service: 'speech-synthesis', fingerprint: 'fp', id: 't', lastStatus: 'PENDING' });
      expect((await ledger.findById('speech-synthesis', 't'))?.retryAfterFloorMs ?? null).toBeNull();
      await ledger.updateById('speech-synthesis', 't', { lastStatus: 'PENDING', retryAfterFloorMs: 3_000 });
      // A later read that changed the job leaves the floor as it was.
      const started = await ledger.updateById('speech-synthesis', 't', { lastStatus: 'STARTED' });
      expect(started).toMatchObject({ lastStatus: 'STARTED', retryAfterFloorMs: 3_000 });
      expect(await ledger.findByFingerprint('speech-synthesis', 'fp')).toEqual(started);
      const replaced = await ledger.update('speech-synthesis', 'fp', { id: 't2', retryAfterFloorMs: null });
      expect(replaced?.retryAfterFloorMs ?? null).toBeNull();
    });

    it('keeps every patch of 30 concurrent updates, fields of its own included', async () => {
      const ledger = await open();
      await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'UPLOADED' });
      await Promise.all(
        Array.from({ length: 30 }, (_unused, index) =>
          ledger.update('meeting', 'fp', { request: undefined, [`field${index}`]: index } as never),
        ),
      );
      const entry = (await ledger.findByFingerprint('meeting', 'fp')) as unknown as Record<string, unknown>;
      for (let index = 0; index < 30; index++) expect(entry[`field${index}`]).toBe(index);
      expect(entry.revision).toBe(31);
    });

    it('refuses service names that could escape a directory, so entries move between the stores', async () => {
      const ledger = await open();
      await expect(ledger.findByFingerprint('../x', 'fp')).rejects.toThrow('Invalid service name');
      await expect(ledger.list({ service: '' })).rejects.toThrow('Invalid service name');
    });
  });
}
