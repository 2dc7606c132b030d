import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeetingRecording, type Sandbox, startSandbox } from '../src/index.js';
import { createClient, SHORT_SCRIPT } from './support/sandbox-client.js';

/** A PCM WAV header for `seconds` of 8-bit mono audio at 1 kHz, with the samples (all silence). */
function lowRateWav(seconds: number): Buffer {
  const rate = 1000;
  const dataBytes = seconds * rate;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes, 128)]);
}

let scratch: string;
let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;
let small: Sandbox;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sandbox-upload-test-'));
  sandbox = await startSandbox({ speed: 100, dataDir: scratch });
  client = createClient(sandbox);
  small = await startSandbox({
    config: { limits: { maxUploadBytes: 128 * 1024, maxDurationSeconds: 5 } },
    dataDir: scratch,
  });
});
afterAll(async () => {
  await sandbox.close();
  await small.close();
  await rm(scratch, { recursive: true, force: true });
});

/** Every file the sandboxes keep in the scratch directory (uploads live in one subdirectory each). */
async function storedUploads(): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(scratch)) {
    for (const file of await readdir(path.join(scratch, entry))) found.push(path.join(entry, file));
  }
  return found;
}

describe('POST /uploads', () => {
  it('answers 201 with a signed receipt and the measured duration; each upload is a new recording', async () => {
    const bytes = createMeetingRecording({ script: SHORT_SCRIPT });
    const first = await client.uploadBytes(bytes);
    const second = await client.uploadBytes(bytes);
    expect(first.status).toBe(201);
    expect(typeof first.body.uploadReceipt).toBe('string');
    expect(first.body.durationSeconds).toBeGreaterThan(8);
    expect(first.body.uploadId).not.toBe(second.body.uploadId);
    const a = await client.createJob(first.body.uploadReceipt);
    const b = await client.createJob(second.body.uploadReceipt);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('answers 400 when the file field is missing or the body is not multipart', async () => {
    const form = new FormData();
    form.append('other', new Blob([Buffer.alloc(100)]), 'x.wav');
    form.append('note', 'hello');
    const missing = await fetch(`${client.base}/uploads`, {
      method: 'POST',
      headers: { 'x-api-key': sandbox.apiKey },
      body: form,
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toMatch(/file/);
    const notMultipart = await client.call('POST', '/uploads', { json: { file: 'x' } });
    expect(notMultipart.status).toBe(400);
  });

  it('answers 400 for a file in no accepted format', async () => {
    const result = await client.uploadBytes(Buffer.from('just some text, not a recording'), 'notes.txt');
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/unsupported recording format/);
  });

  it('estimates the duration of an accepted file it cannot read and warns on the job', async () => {
    const result = await client.uploadBytes(Buffer.alloc(48_000, 7), 'camera.avi');
    expect(result.status).toBe(201);
    expect(result.body.durationSeconds).toBe(3);
    const id = (await client.createJob(result.body.uploadReceipt)).body.id;
    expect((await client.job(id)).warning).toMatch(/estimated/);
  });

  it('answers 413 past maxUploadBytes, keeps no partial file and counts no upload', async () => {
    const smallClient = createClient(small);
    const before = small.control.counters().uploads;
    const stored = (await storedUploads()).length;
    // Past the limit while streaming, and (with the slack for multipart framing) by Content-Length alone.
    for (const size of [300 * 1024, 3 * 1024 * 1024]) {
      const result = await smallClient.uploadBytes(Buffer.alloc(size), 'big.wav');
      expect(result.status).toBe(413);
      expect(result.body.error).toMatch(/too large/);
    }
    expect(small.control.counters().uploads).toEqual(before);
    expect((await storedUploads()).length).toBe(stored);
    // The sandbox still works after refusing.
    const ok = await smallClient.uploadBytes(
      createMeetingRecording({ script: [{ speaker: 'A', text: 'Hi.' }] }),
    );
    expect(ok.status).toBe(201);
    expect((await storedUploads()).length).toBe(stored + 1);
  });

  it('answers 413 for a recording longer than the duration limit', async () => {
    const result = await createClient(small).uploadBytes(
      createMeetingRecording({ script: SHORT_SCRIPT, sampleRate: 4000 }),
    );
    expect(result.status).toBe(413);
    expect(result.body.error).toMatch(/too long/);
  });

  it('answers 413 for a recording over 2 hours with the default limits', async () => {
    const over = await client.uploadBytes(lowRateWav(2 * 3600 + 5), 'long.wav');
    expect(over.status).toBe(413);
    const under = await client.uploadBytes(lowRateWav(2 * 3600 - 5), 'long.wav');
    expect(under.status).toBe(201);
    // 120 started minutes at 4 credits.
    const id = (await client.createJob(under.body.uploadReceipt)).body.id;
    expect((await client.job(id)).credits).toBe(480);
  });

  it('streams a large upload to disk without holding it in memory', async () => {
    const total = 96 * 1024 * 1024;
    const boundary = 'sandbox-rss-test';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const before = process.memoryUsage().rss;
    let peak = before;
    const url = new URL(`${client.base}/uploads`);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(url, {
        method: 'POST',
        headers: {
          'x-api-key': sandbox.apiKey,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + total + tail.length),
        },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 0);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          peak = Math.max(peak, process.memoryUsage().rss);
          if (!request.write(chunk)) {
            request.once('drain', pump);
            return;
          }
        }
        request.end(tail);
      };
      request.write(head);
      pump();
    });
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(status).toBe(201);
    // Buffering would add ~96 MB (client and server share this process); streaming stays far below.
    expect(peak - before).toBeLessThan(60 * 1024 * 1024);
  });
});
