/**
 * A ninth service added the way docs/extending.md says, end to end: its simulation registered in the
 * sandbox (`startSandbox({ services })`), its client on core's job resource and job engine, its tools in a
 * group on `createPolymodalServer`, called over MCP. What is asserted is what a user notices: a handle that
 * names the tool to call next, the count once the job is done, one POST however many identical calls, the
 * job in list_jobs, a failed job answered as such, and bad input refused before anything is sent. The
 * sandbox clock is held for the whole file: a job moves only when a test advances it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHttpClient, type HttpClient } from '@polymodal/core/http';
import { createPolymodalServer } from '@polymodal/mcp-common/host';
import { FAIL_MARKER, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, connectInMemory, sandboxSecrets, serverEnv } from '../support/server-harness.js';
import { wordCountTools } from './word-count-group.js';
import { WORD_COUNT_API_PATH } from './word-count-job.js';
import { createWordCountService, WORD_COUNT_COUNTER } from './word-count-sandbox.js';

/** Reads of a job this far apart (the sandbox's clock is held, so this only paces real time). */
const INTERVAL_MS = 20;
/** Longer than a word-count job's whole timeline (1 s queued, 4 s running). */
const JOB_MS = 5_000;

let sandbox: Sandbox;
let root: string;
let http: HttpClient;
let connection: Connection;

// #region test-setup
beforeAll(async () => {
  sandbox = await startSandbox({ clock: 'held', services: [createWordCountService] });
  root = await mkdtemp(path.join(os.tmpdir(), 'ninth-service-'));
  http = createHttpClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, auth: 'x-api-key' });
  const instance = createPolymodalServer({
    name: 'polymodal-mcp-word-count',
    title: 'Word count (toy)',
    version: '0.0.0',
    instructions: 'count_words, then get_word_count while done=false.',
    deps: { env: serverEnv(root, sandbox) },
    groups: [wordCountTools({ http, intervalMs: INTERVAL_MS })],
  });
  connection = await connectInMemory(instance, { secrets: sandboxSecrets(sandbox) });
});
// #endregion

afterAll(async () => {
  await connection?.close();
  await http?.close();
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The POSTs that started a word-count job, as the sandbox received them. */
const posts = () => sandbox.control.requests({ method: 'POST', path: `${WORD_COUNT_API_PATH}/jobs$` }).length;
/** Word-count jobs the sandbox created, all users together. */
const jobsCreated = () =>
  Object.values(sandbox.control.counters()[WORD_COUNT_COUNTER] ?? {}).reduce((sum, count) => sum + count, 0);
/** Every request to the word-count service. */
const requests = () => sandbox.control.requests({ path: WORD_COUNT_API_PATH }).length;

describe('a ninth service, added as docs/extending.md says', () => {
  it('answers a handle naming get_word_count while the job runs, then the count; the same text again is free', async () => {
    const postsBefore = posts();
    const started = await connection.call('count_words', { text: 'one two  three\nfour', waitSeconds: 0 });
    expect(started.isError, started.text).toBe(false);
    expect(started.structured).toMatchObject({ done: false, status: 'queued', resumed: false });
    const jobId = started.structured.jobId as string;
    expect(started.structured.next).toContain(`get_word_count with jobId=${jobId}`);
    expect(started.text).toContain('get_word_count');

    sandbox.control.advance(JOB_MS);
    const done = await connection.call('get_word_count', { jobId, waitSeconds: 10 });
    expect(done.isError, done.text).toBe(false);
    expect(done.structured).toMatchObject({
      jobId,
      done: true,
      outcome: 'succeeded',
      words: 4,
      progress: 100,
    });
    expect(done.text).toContain('The text has 4 words.');

    const again = await connection.call('count_words', { text: 'one two  three\nfour', waitSeconds: 10 });
    expect(again.structured).toMatchObject({ jobId, done: true, resumed: true, words: 4 });
    expect(posts() - postsBefore).toBe(1);
  });

  // #region test-paid-once
  it('5 identical calls at once make exactly one POST, and all follow the one job', async () => {
    const [postsBefore, jobsBefore] = [posts(), jobsCreated()];
    const calls = Array.from({ length: 5 }, () =>
      connection.call('count_words', { text: 'five callers, one job', waitSeconds: 0 }),
    );
    const results = await Promise.all(calls);
    for (const result of results) expect(result.isError, result.text).toBe(false);
    expect(new Set(results.map((result) => result.structured.jobId)).size).toBe(1);
    expect(posts() - postsBefore).toBe(1);
    expect(jobsCreated() - jobsBefore).toBe(1);
  });
  // #endregion

  it('list_jobs shows the job started here, with its title and last seen status', async () => {
    const started = await connection.call('count_words', { text: 'listed here', waitSeconds: 0 });
    const jobId = started.structured.jobId as string;
    const listed = await connection.call('list_jobs', {});
    expect(listed.isError, listed.text).toBe(false);
    expect(listed.structured.jobs).toContainEqual(
      expect.objectContaining({ service: 'word-count', jobId, status: 'queued', title: 'listed here' }),
    );
    expect(listed.text).toContain(jobId);
  });

  it('a failed job is an answer, not an error: done, outcome failed, the reason, and what to do next', async () => {
    const started = await connection.call('count_words', { text: `broken ${FAIL_MARKER}`, waitSeconds: 0 });
    const jobId = started.structured.jobId as string;
    sandbox.control.advance(JOB_MS);
    const failed = await connection.call('get_word_count', { jobId, waitSeconds: 10 });
    expect(failed.isError, failed.text).toBe(false);
    expect(failed.structured).toMatchObject({
      done: true,
      outcome: 'failed',
      error: 'the text could not be read',
    });
    expect(failed.structured.next).toContain('newJob=true');
  });

  it('refuses bad input before any request: an empty text, a text of blanks, a malformed job id', async () => {
    const before = requests();
    const empty = await connection.call('count_words', { text: '' });
    expect(empty.isError).toBe(true);
    const blank = await connection.call('count_words', { text: ' \n\t ' });
    expect(blank.isError).toBe(true);
    expect(blank.text).toMatch(/^invalid input: .*text: needs at least one word.*Nothing was sent/);
    const badId = await connection.call('get_word_count', { jobId: '../wc_1' });
    expect(badId.isError).toBe(true);
    expect(badId.text).toContain('Nothing was sent');
    expect(requests()).toBe(before);
  });
});
