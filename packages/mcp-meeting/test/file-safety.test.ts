/**
 * What summarize_meeting reads, tried as an attacker and a careless agent would: a directory swapped for a
 * link to an outside recording while the call waits on the network, a FIFO, and recordings whose header is
 * right but whose inside is junk. Nothing from outside is uploaded, and bad files cost no request at all.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { riffWaveJunk } from '@polymodal/core/testing';
import { until } from '@polymodal/mcp-common/testing';
import type { MeetingScriptLine } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, SHORT_SCRIPT, startHarness } from './support/harness.js';

const API = '/api/conference-summary/v1';
const OUTSIDE_SCRIPT: MeetingScriptLine[] = [
  { speaker: 'Mallory', text: 'This confidential outside recording must never be uploaded anywhere.' },
];

/** The job as the sandbox holds it, transcript included (read with the key, as the platform serves it). */
async function sandboxJob(harness: Harness, jobId: string): Promise<string> {
  const response = await fetch(`${harness.sandbox.url}${API}/jobs/${jobId}`, {
    headers: { authorization: `Bearer ${harness.sandbox.apiKey}` },
  });
  expect(response.status).toBe(200);
  return JSON.stringify(await response.json());
}

/** An ISO media `ftyp` box followed by junk. */
function ftypJunk(): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypisom\0\0\x02\0isom', 'latin1')]);
  return Buffer.concat([ftyp, Buffer.from('this is not a movie '.repeat(200), 'latin1')]);
}

describe('summarize_meeting reads only the file it checked', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('uploads the original when the directory is swapped for an outside link during the limits lookup', async () => {
    harness = await startHarness();
    const meetings = path.join(harness.mediaDir, 'meetings');
    const outside = path.join(harness.root, 'outside');
    const file = await harness.writeRecording('standup.wav', { dir: meetings, script: SHORT_SCRIPT });
    await harness.writeRecording('standup.wav', { dir: outside, script: OUTSIDE_SCRIPT });
    // The limits lookup (GET /jobs) is the network round trip between the check and the upload.
    harness.sandbox.control.setFaults([
      { match: { method: 'GET', path: `${API}/jobs$` }, kind: 'latency', latencyMs: 1000 },
    ]);
    const call = harness.call('summarize_meeting', {
      path: file,
      sourceLanguage: 'en',
      targetLanguage: 'de',
      waitSeconds: 30,
    });
    const sandbox = harness.sandbox;
    await until(() => sandbox.control.requests({ method: 'GET', path: `${API}/jobs$` }).length === 1);
    await rename(meetings, path.join(harness.mediaDir, 'meetings-moved'));
    await symlink(outside, meetings);
    const result = await call;
    harness.sandbox.control.clearFaults();

    if (result.isError) {
      // Refusing is acceptable; uploading the outside recording is not.
      expect(sandbox.control.requests({ method: 'POST', path: `${API}/uploads$` })).toHaveLength(0);
      return;
    }
    expect(result.structured).toMatchObject({ done: true });
    const job = await sandboxJob(harness, result.structured.jobId as string);
    expect(job).toContain('review the launch plan for the beta');
    expect(job).not.toContain('confidential outside recording');
  });

  it('refuses a FIFO at once with no request, and the server keeps serving', async () => {
    harness = await startHarness();
    const fifo = path.join(harness.mediaDir, 'live.wav');
    execFileSync('mkfifo', [fifo]);
    const refused = await harness.call('summarize_meeting', { path: fifo, waitSeconds: 0 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/live\.wav is a named pipe/);
    expect(harness.sandbox.control.requests()).toHaveLength(0);

    const file = await harness.writeRecording('after-fifo.wav');
    const next = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(next.isError, next.text).toBe(false);
    expect(next.structured.jobId).toEqual(expect.any(String));
  });

  it('refuses a RIFF/WAVE header followed by junk and an ftyp followed by junk, with no request', async () => {
    harness = await startHarness();
    await mkdir(harness.mediaDir, { recursive: true });
    const cases: [string, Buffer, RegExp][] = [
      ['junk.wav', riffWaveJunk(8000), /junk\.wav is damaged: no valid RIFF chunk starts at byte 12/],
      ['junk.mp4', ftypJunk(), /junk\.mp4 is damaged or cut short: its MP4 boxes cannot be read/],
    ];
    for (const [name, content, problem] of cases) {
      const file = path.join(harness.mediaDir, name);
      await writeFile(file, content);
      const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(problem);
      expect(result.text).toContain('Nothing was sent.');
    }
    expect(harness.sandbox.control.requests()).toHaveLength(0);
    expect(Object.values(harness.sandbox.control.counters().jobsCreated)).toEqual([]);
  });
});
