/**
 * Completion of the meeting prompts' arguments, as a host asks while a person types: the recording among the
 * readable files (absolute paths on stdio, relative ones over HTTP, never a server path there), the
 * languages from their lists, and a meeting job id from the caller's own ledger, newest first. Over HTTP
 * with tenants, one tenant's jobs are never offered to another, and completing costs nothing: the platform
 * is asked nothing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MEETING_LANGUAGES } from '@polymodal/core/constants';
import { createJobLedger } from '@polymodal/core/ledger';
import {
  completionOf,
  connectInProcess,
  GENERATIONS,
  serveTenants,
  startSandboxAndRoot,
  teamTenants,
  useServerEnv,
} from '@polymodal/mcp-common/testing';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-meeting-completion-', sandbox: false });

beforeAll(async () => {
  const recordings = path.join(env.POLYMODAL_ALLOWED_DIRS as string, 'recordings');
  await mkdir(recordings, { recursive: true });
  for (const name of ['standup.wav', 'retro.mp4', 'notes.txt'])
    await writeFile(path.join(recordings, name), 'x');
  // Meetings recorded in the ledger as the engine leaves them, a minute apart, with one still being
  // submitted (no id yet) and a job of another service.
  const ledger = createJobLedger({ dir: path.join(env.POLYMODAL_STATE_DIR as string, 'jobs') });
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString();
  const meeting = (id: string | null, minute: number) => ({
    service: 'meeting',
    fingerprint: `fp-${id ?? 'pending'}`,
    id,
    lastStatus: 'COMPLETED',
    createdAt: at(minute),
  });
  for (const entry of [
    meeting('mtg-100', 1),
    meeting('mtg-205', 2),
    meeting('mtg-210', 3),
    meeting(null, 4),
  ]) {
    await ledger.insert(entry);
  }
  await ledger.insert({ ...meeting('fc-1', 5), service: 'flashcards', fingerprint: 'fp-fc' });
});

describe.each(GENERATIONS)('completing the meeting prompts in process, %s', (generation) => {
  const connect = () => connectInProcess(generation, createServer, { env, secrets: [] });

  it('offers the recordings of a readable folder, of the kinds a meeting takes, never a server path over HTTP', async () => {
    const server = await connect();
    try {
      const complete = async (typed: string) =>
        (await completionOf(server.client, 'meeting_minutes', 'recording', typed)).values;
      const folder = `${env.POLYMODAL_ALLOWED_DIRS}/recordings/`;
      expect(await complete('recordings/')).toEqual(['recordings/retro.mp4', 'recordings/standup.wav']);
      // In process, 2025-11-25 runs as over stdio (a person on this machine: absolute paths are theirs) and
      // 2026-07-28 as over stateless HTTP (a remote caller: no path of the server).
      expect(await complete(folder)).toEqual(
        generation === '2025-11-25' ? [`${folder}retro.mp4`, `${folder}standup.wav`] : [],
      );
    } finally {
      await server.close();
    }
  });

  it('offers the languages from their lists', async () => {
    const server = await connect();
    try {
      expect((await completionOf(server.client, 'meeting_minutes', 'language', '')).values).toEqual([
        'auto',
        ...MEETING_LANGUAGES,
      ]);
      expect((await completionOf(server.client, 'meeting_minutes', 'minutesLanguage', 'E')).values).toEqual(
        MEETING_LANGUAGES.filter((language) => language.startsWith('e')),
      );
    } finally {
      await server.close();
    }
  });

  it('offers the meeting jobs of the ledger, newest first, narrowed by what is typed', async () => {
    const server = await connect();
    try {
      expect((await completionOf(server.client, 'translate_meeting', 'jobId', '')).values).toEqual([
        'mtg-210',
        'mtg-205',
        'mtg-100',
      ]);
      expect((await completionOf(server.client, 'translate_meeting', 'jobId', 'mtg-2')).values).toEqual([
        'mtg-210',
        'mtg-205',
      ]);
    } finally {
      await server.close();
    }
  });
});

const TOKENS = { a: 'complete-a-token-5e1d', b: 'complete-b-token-0c93' };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe('completing the meeting prompts over HTTP, with tenants', () => {
  it('offers a tenant its own jobs only, and relative paths only, without asking the platform', async () => {
    const { sandbox, root, mediaDir, close } = await startSandboxAndRoot('mcp-meeting-completion-http-', {
      speed: 100,
      clock: 'held',
    });
    cleanups.push(close);
    const server = await serveTenants({
      sandbox,
      root,
      mediaDir,
      tenants: teamTenants(TOKENS),
      createServer: (options) => createServer(options as Parameters<typeof createServer>[0]),
      secrets: Object.values(TOKENS),
    });
    cleanups.push(() => server.close());
    const recording = path.join(mediaDir, 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [{ speaker: 'Alice', text: 'Team A plans the launch.', seconds: 20 }],
      sampleRate: 4_000,
    });
    await mkdir(path.join(mediaDir, 'archive'));
    const started = await (await server.connect(TOKENS.a))('summarize_meeting', {
      path: recording,
      waitSeconds: 0,
    });
    expect(started.isError, started.text).toBe(false);
    const jobId = started.structured.jobId as string;
    const requestsBefore = sandbox.control.requests({}).length;

    for (const generation of GENERATIONS) {
      const teamA = await server.client(TOKENS.a, generation);
      const teamB = await server.client(TOKENS.b, generation);
      expect((await completionOf(teamA, 'translate_meeting', 'jobId', '')).values).toEqual([jobId]);
      expect((await completionOf(teamB, 'translate_meeting', 'jobId', '')).values).toEqual([]);
      expect((await completionOf(teamB, 'translate_meeting', 'jobId', jobId.slice(0, 3))).values).toEqual([]);

      // Relative to the readable directory, as the tools resolve a remote caller's path; never the server's.
      expect((await completionOf(teamA, 'meeting_minutes', 'recording', '')).values).toEqual([
        'archive/',
        'standup.wav',
      ]);
      for (const typed of [`${mediaDir}/`, '/', '../', '~/']) {
        expect((await completionOf(teamB, 'meeting_minutes', 'recording', typed)).values, typed).toEqual([]);
      }
    }
    // Completing asked the platform nothing.
    expect(sandbox.control.requests({}).length).toBe(requestsBefore);
  });
});
