/**
 * The meeting client end to end against a loopback stand-in of the service: uploads, job creation,
 * the ledger's "never pay twice" guarantees, polling, failures, confinement and key hygiene.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../src/http.js';
import {
  createFileAccess,
  createPolymodal,
  JobFailedError,
  type MeetingClient,
  NotFoundError,
  ValidationError,
} from '../src/index.js';
import { createJobEngine } from '../src/jobs.js';
import { createJobLedger, type JobLedger } from '../src/ledger.js';
import { createMeetingClient } from '../src/meeting/create-meeting-client.js';
import { type FakeMeetingServer, startFakeMeetingServer } from './support/fake-meeting-server.js';
import { wav } from './support/make-wav.js';

const KEY = 'pk_meeting_TOPSECRET42';
let root: string;
let recordings: string;
let fake: FakeMeetingServer;
let http: HttpClient;
let ledger: JobLedger;
let meeting: MeetingClient;
let recording: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'polymodal-meeting-')));
  recordings = path.join(root, 'recordings');
  await mkdir(recordings);
  recording = path.join(recordings, 'weekly.wav');
  await writeFile(recording, wav(3));
  fake = await startFakeMeetingServer(KEY);
  http = createHttpClient({ baseUrl: fake.url, apiKey: KEY, auth: 'bearer', sleep: async () => undefined });
  ledger = createJobLedger({ dir: path.join(root, 'state', 'jobs') });
  meeting = createMeetingClient({ http, engine: createJobEngine({ ledger }), pollIntervalMs: 5 });
});

afterEach(async () => {
  await http.close();
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

const jobOptions = { sourceLanguage: 'auto', targetLanguage: 'en' } as const;
const requestsTo = (fragment: string) =>
  fake.server.requests.filter((request) => `${request.method} ${request.url}` === fragment);

describe('meeting client', () => {
  it('submits a recording: upload, create, title, and records everything in the ledger', async () => {
    const result = await meeting.submit({
      file: recording,
      ...jobOptions,
      minSpeakers: 2,
      title: 'Weekly sync',
    });
    expect(result).toMatchObject({ id: 'job-2', created: true, resumed: false });
    expect(result.recording?.durationSeconds).toBeCloseTo(3, 3);
    expect(fake.uploads).toHaveLength(1);
    expect(fake.uploads[0]?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(fake.jobs.get('job-2')?.request).toEqual({
      uploadReceipt: 'receipt-1',
      ...jobOptions,
      minSpeakers: 2,
    });
    expect(fake.jobs.get('job-2')?.title).toBe('Weekly sync');
    expect(fake.server.requests.every((request) => request.headers.authorization === `Bearer ${KEY}`)).toBe(
      true,
    );

    const entry = await ledger.findById('meeting', 'job-2');
    expect(entry).toMatchObject({
      id: 'job-2',
      receipt: 'receipt-1',
      lastStatus: 'PENDING',
      title: 'Weekly sync',
    });
    expect(entry?.request).toMatchObject({ file: recording, sourceLanguage: 'auto', targetLanguage: 'en' });
  });

  it('resumes instead of uploading and paying again for the same file and options', async () => {
    const first = await meeting.submit({ file: recording, ...jobOptions });
    const again = await meeting.submit({ file: recording, ...jobOptions });
    expect(again).toMatchObject({ id: first.id, created: false, resumed: true, joined: false });
    expect(again.recording).toBeUndefined();
    expect(fake.uploads).toHaveLength(1);
    expect(requestsTo('POST /api/conference-summary/v1/jobs')).toHaveLength(1);

    // Different options are different work.
    const other = await meeting.submit({ file: recording, sourceLanguage: 'auto', targetLanguage: 'ja' });
    expect(other.id).not.toBe(first.id);
    // force submits anew.
    const forced = await meeting.submit({ file: recording, ...jobOptions, force: true });
    expect(forced.resumed).toBe(false);
    expect(fake.uploads).toHaveLength(3);
  });

  it('submits anew when the recorded job failed, was cancelled or no longer exists', async () => {
    const first = await meeting.submit({ file: recording, ...jobOptions });
    await meeting.cancel(first.id);
    const afterCancel = await meeting.submit({ file: recording, ...jobOptions });
    expect(afterCancel.resumed).toBe(false);
    fake.jobs.delete(afterCancel.id);
    const afterLoss = await meeting.submit({ file: recording, ...jobOptions });
    expect(afterLoss.resumed).toBe(false);
    expect(fake.uploads).toHaveLength(3);
  });

  it('re-posts a recorded receipt after a failure between upload and job id (no second upload)', async () => {
    // The server creates the job but the answer is lost, and this client does not retry: only the
    // receipt is in the ledger, as after a crash.
    const fragile = createHttpClient({ baseUrl: fake.url, apiKey: KEY, auth: 'bearer', maxRetries: 0 });
    try {
      fake.faults.set('POST /api/conference-summary/v1/jobs', 'reset-after-receive');
      const crashed = createMeetingClient({
        http: fragile,
        engine: createJobEngine({ ledger }),
        pollIntervalMs: 5,
      });
      await expect(crashed.submit({ file: recording, ...jobOptions })).rejects.toMatchObject({
        kind: 'connection',
      });
    } finally {
      await fragile.close();
    }
    const [entry] = await ledger.list();
    // The job creation may have arrived: the outcome is unknown, and the receipt is kept to resume with.
    expect(entry).toMatchObject({ id: null, receipt: 'receipt-1', lastStatus: 'UNKNOWN', claim: null });

    const result = await meeting.submit({ file: recording, ...jobOptions });
    // The receipt answers with the job it already created (200): nothing uploaded or paid again.
    expect(result).toMatchObject({ id: 'job-2', created: false, resumed: false });
    expect(fake.uploads).toHaveLength(1);
    expect(fake.jobs.size).toBe(1);
    expect((await ledger.findById('meeting', 'job-2'))?.receipt).toBe('receipt-1');
  });

  it('uploads again when the recorded receipt is refused (e.g. expired)', async () => {
    const first = await meeting.submit({ file: recording, ...jobOptions });
    const entry = await ledger.findById('meeting', first.id);
    await ledger.update('meeting', (entry as NonNullable<typeof entry>).fingerprint, {
      id: null,
      receipt: 'forged-receipt',
      lastStatus: 'UPLOADED',
    });
    const second = await meeting.submit({ file: recording, ...jobOptions });
    expect(second.resumed).toBe(false);
    expect(fake.uploads).toHaveLength(2);
  });

  it('retries job creation after a connection reset, getting the same job back', async () => {
    const { uploadReceipt } = await meeting.upload(recording);
    fake.faults.set('POST /api/conference-summary/v1/jobs', 'reset-after-receive');
    const result = await meeting.create({ uploadReceipt, ...jobOptions });
    expect(result.created).toBe(false);
    expect(fake.jobs.size).toBe(1);
    expect(requestsTo('POST /api/conference-summary/v1/jobs')).toHaveLength(2);
  });

  it('repeats an upload answered 503 (authentication unavailable: nothing was stored), with back-off', async () => {
    fake.faults.set('POST /api/conference-summary/v1/uploads', { status: 503, body: { error: 'auth down' } });
    const { uploadReceipt } = await meeting.upload(recording);
    expect(uploadReceipt).toMatch(/^receipt-/);
    expect(requestsTo('POST /api/conference-summary/v1/uploads')).toHaveLength(2);
    expect(fake.uploads).toHaveLength(1);
  });

  it('a job list without "jobs" is an error naming the keys it has, not "no recordings"', async () => {
    fake.faults.set('GET /api/conference-summary/v1/jobs', {
      status: 200,
      body: { recordings: [{ id: 'x' }], maxUploadBytes: 10 },
    });
    const error = await meeting.list().then(
      () => undefined,
      (reason: unknown) => reason as Error,
    );
    expect(error?.message).toMatch(/no list of recordings under "jobs"; the body has /);
    expect(error?.message).toContain('"recordings"');
    expect(error?.message).toContain('"maxUploadBytes"');
  });

  it('sends a non-ASCII file name as UTF-8 in filename= and keeps it as the title', async () => {
    const named = path.join(recordings, 'réunion hebdo.wav');
    await writeFile(named, wav(3));
    await meeting.upload(named);
    const disposition = fake.uploadDispositions.at(-1) ?? '';
    expect(disposition).toContain('filename="réunion hebdo.wav"');
    expect(disposition).not.toContain('filename*');
  });

  it('never repeats an upload whose connection broke after the server received it', async () => {
    fake.faults.set('POST /api/conference-summary/v1/uploads', 'reset-after-receive');
    await expect(meeting.upload(recording)).rejects.toMatchObject({
      kind: 'connection',
      requestMayHaveArrived: true,
    });
    expect(fake.uploads).toHaveLength(1);
  });

  it('validates the job options before uploading anything', async () => {
    await expect(
      meeting.submit({ file: recording, sourceLanguage: 'auto', targetLanguage: 'auto' as never }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      meeting.submit({ file: recording, ...jobOptions, minSpeakers: 5, maxSpeakers: 2 }),
    ).rejects.toThrow('minSpeakers');
    await expect(meeting.submit({ file: recording, ...jobOptions, maxSpeakers: 31 })).rejects.toThrow(
      'maxSpeakers',
    );
    await expect(
      meeting.create({ uploadReceipt: 'r', ...jobOptions, extra: 1 } as never),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(fake.server.requests).toHaveLength(0);
  });

  it('refuses a recording over the service upload limit before sending it', async () => {
    fake.maxUploadBytes = 1000;
    await expect(meeting.upload(recording)).rejects.toThrow('over the upload limit');
    expect(fake.uploads).toHaveLength(0);
  });

  it('waits until the job stops, reporting progress and keeping the ledger status current', async () => {
    const { id } = await meeting.submit({ file: recording, ...jobOptions });
    const statuses: string[] = [];
    const job = await meeting.wait(id, { onProgress: (current) => statuses.push(current.status) });
    expect(job.status).toBe('COMPLETED');
    expect(job.unknownField).toBe('kept');
    expect(statuses).toEqual(['PENDING', 'TRANSCRIBING', 'SUMMARIZING', 'COMPLETED']);
    expect((await ledger.findById('meeting', id))?.lastStatus).toBe('COMPLETED');
  });

  it('summarize returns the completed job, and throws JobFailedError for a failed one', async () => {
    const job = await meeting.summarize({ file: recording, ...jobOptions });
    expect(job.status).toBe('COMPLETED');
    expect(job.summary?.overview).toBe('ok');

    fake.script = ['PENDING', 'FAILED'];
    const error = await meeting
      .summarize({ file: recording, ...jobOptions, force: true })
      .catch((caught: unknown) => caught);
    expect(JobFailedError.isInstance(error)).toBe(true);
    expect((error as JobFailedError).errorMessage).toBe('audio could not be decoded');
  });

  it('validates and encodes ids', async () => {
    await expect(meeting.retrieve('a/b')).rejects.toBeInstanceOf(ValidationError);
    await expect(meeting.retrieve('..')).rejects.toBeInstanceOf(ValidationError);
    await expect(meeting.retrieve('')).rejects.toBeInstanceOf(ValidationError);
    await expect(meeting.retrieve('no such?job')).rejects.toBeInstanceOf(NotFoundError);
    expect(fake.server.requests.at(-1)?.url).toBe('/api/conference-summary/v1/jobs/no%20such%3Fjob');
  });

  it('runs the job actions, update and delete', async () => {
    const { id } = await meeting.submit({ file: recording, ...jobOptions });
    expect(await meeting.retry(id)).toEqual({ success: true });
    expect(await meeting.resummarize(id)).toEqual({ success: true });
    expect(await meeting.retranslate(id, { targetLanguage: 'fr' })).toEqual({ success: true });
    await expect(meeting.retranslate(id, { targetLanguage: 'xx' as never })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect((await meeting.update(id, { title: 'Renamed' })).title).toBe('Renamed');
    await expect(meeting.update(id, {})).rejects.toBeInstanceOf(ValidationError);
    const listed = await meeting.list();
    expect(listed.jobs.map((job) => job.id)).toContain(id);
    expect(await meeting.delete(id)).toEqual({ success: true });
    expect((await ledger.findById('meeting', id))?.lastStatus).toBe('DELETED');
    const actions = requestsTo(`POST /api/conference-summary/v1/jobs/${id}`);
    expect(actions).toHaveLength(3);
  });

  it('confines the recording to the allowed directories when given a FileAccess', async () => {
    const outside = path.join(root, 'elsewhere.wav');
    await writeFile(outside, wav(1));
    const files = createFileAccess({ allowedDirs: [recordings], outputDir: path.join(root, 'out'), env: {} });
    const confined = createMeetingClient({
      http,
      engine: createJobEngine({ ledger }),
      files,
      pollIntervalMs: 5,
    });
    await expect(confined.submit({ file: outside, ...jobOptions })).rejects.toThrow(
      'outside the allowed directories',
    );
    expect(fake.server.requests).toHaveLength(0);
    const result = await confined.submit({ file: 'weekly.wav', ...jobOptions });
    expect(result.created).toBe(true);
  });

  it('createPolymodal wires config, ledger and Bearer auth, and never exposes the key', async () => {
    const client = createPolymodal({
      env: { POLYMODAL_BASE_URL: `${fake.url}/`, POLYMODAL_API_KEY: KEY },
      stateDir: path.join(root, 'state2'),
      http: { sleep: async () => undefined },
    });
    try {
      expect(client.config).toEqual({ baseUrl: fake.url });
      expect(client.ledger?.location).toBe(path.join(root, 'state2', 'jobs'));
      const listed = await client.meeting.list();
      expect(listed.maxUploadBytes).toBe(fake.maxUploadBytes);
      expect(JSON.stringify(client)).not.toContain(KEY);
      expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(KEY);
    } finally {
      await client.close();
    }
    const wrongKey = createPolymodal({ baseUrl: fake.url, apiKey: 'pk_wrong_KEY999', ledger: false });
    try {
      const error = (await wrongKey.meeting.list().catch((caught: unknown) => caught)) as Error;
      expect(error.message).toContain('401');
      expect(error.message).not.toContain('pk_wrong_KEY999');
    } finally {
      await wrongKey.close();
    }
  });
});
