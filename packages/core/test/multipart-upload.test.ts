/**
 * Streamed multipart uploads through the HTTP client: exact bytes and Content-Length on the wire, a file
 * that changes mid-upload, the opened file (not the path) sent on every attempt, and flat memory for a
 * 200 MB file.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createHttpClient,
  createMultipartFileBody,
  type HttpClient,
  type OpenedFile,
  openRegularFile,
  ValidationError,
} from '../src/index.js';
import { sendJson, startServer, type TestServer } from './helpers/start-server.js';

const Receipt = z.looseObject({ uploadReceipt: z.string() });
let dir: string;
let server: TestServer | undefined;
let client: HttpClient | undefined;
let opened: OpenedFile | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'polymodal-upload-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await opened?.handle.close();
  opened = undefined;
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('multipart upload', () => {
  it('arrives intact, with the announced Content-Length', async () => {
    const file = path.join(dir, 'réunion "1".wav');
    const content = randomBytes(300_000);
    await writeFile(file, content);
    let received = Buffer.alloc(0);
    let announced = '';
    let contentType = '';
    server = await startServer(async (request, response) => {
      announced = request.headers['content-length'] ?? '';
      contentType = request.headers['content-type'] ?? '';
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      received = Buffer.concat(chunks);
      sendJson(response, 200, { uploadReceipt: 'r1' });
    });
    client = createHttpClient({ baseUrl: server.url, apiKey: 'k_1', auth: 'bearer' });
    const progress: number[] = [];
    opened = await openRegularFile(file);
    const upload = opened;
    const result = await client.request({
      method: 'POST',
      path: '/uploads',
      multipart: () =>
        createMultipartFileBody({
          field: 'file',
          file: upload,
          filename: path.basename(file),
          contentType: 'audio/wav',
          fields: { purpose: 'meeting' },
          onProgress: (sent) => progress.push(sent),
        }),
      schema: Receipt,
      idempotent: false,
    });
    expect(result.data.uploadReceipt).toBe('r1');
    expect(Number(announced)).toBe(received.length);
    const boundary = /boundary=(.+)$/.exec(contentType)?.[1] ?? '';
    expect(boundary).not.toBe('');
    const text = received.toString('utf8');
    expect(
      text.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nmeeting\r\n`),
    ).toBe(true);
    // RFC 7578 §4.2: UTF-8 in filename=, never filename* (which form-data parsers may ignore).
    expect(text).toContain('filename="réunion %221%22.wav"');
    expect(text).not.toContain('filename*');
    const start = received.indexOf('\r\n\r\n', received.indexOf('Content-Type: audio/wav')) + 4;
    const end = received.length - `\r\n--${boundary}--\r\n`.length;
    expect(received.subarray(start, end).equals(content)).toBe(true);
    expect(received.subarray(end).toString()).toBe(`\r\n--${boundary}--\r\n`);
    expect(progress.at(-1)).toBe(content.length);
  });

  it('sends the file that was opened on every attempt, even after its path is replaced', async () => {
    const file = path.join(dir, 'checked.wav');
    const original = randomBytes(200_000);
    await writeFile(file, original);
    const bodies: Buffer[] = [];
    server = await startServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      bodies.push(Buffer.concat(chunks));
      if (bodies.length === 1) {
        // While the client waits to retry, the path is made to name another file.
        await rename(file, `${file}.old`);
        await writeFile(file, Buffer.alloc(original.length, 0x41));
        response.setHeader('retry-after', '0');
        sendJson(response, 503, { error: 'authentication unavailable' });
        return;
      }
      sendJson(response, 200, { uploadReceipt: 'r2' });
    });
    client = createHttpClient({ baseUrl: server.url, apiKey: 'k_1', auth: 'bearer', sleep: async () => {} });
    opened = await openRegularFile(file);
    const upload = opened;
    await client.request({
      method: 'POST',
      path: '/uploads',
      multipart: () =>
        createMultipartFileBody({
          field: 'file',
          file: upload,
          filename: 'checked.wav',
          contentType: 'audio/wav',
        }),
      schema: Receipt,
      idempotent: false,
      retryStatuses: [503],
    });
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body.includes(original)).toBe(true);
      expect(body.includes(Buffer.alloc(1000, 0x41))).toBe(false);
    }
  });

  it('fails with "the file changed during upload" when an opened file grows mid-stream', async () => {
    const file = path.join(dir, 'growing-opened.wav');
    await writeFile(file, Buffer.alloc(2 * 1024 * 1024, 1));
    opened = await openRegularFile(file);
    const multipart = createMultipartFileBody({
      field: 'file',
      file: opened,
      filename: 'growing.wav',
      contentType: 'audio/wav',
    });
    let appended = false;
    const consume = async () => {
      for await (const _chunk of multipart.body) {
        if (!appended) {
          appended = true;
          await appendFile(file, Buffer.alloc(1000, 2));
        }
      }
    };
    const error = await consume().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('changed during upload');
  });

  it('fails with "the file changed during upload" when a file given by path grows mid-stream', async () => {
    const file = path.join(dir, 'growing.wav');
    await writeFile(file, Buffer.alloc(2 * 1024 * 1024, 1));
    const multipart = createMultipartFileBody({
      field: 'file',
      path: file,
      filename: 'growing.wav',
      contentType: 'audio/wav',
    });
    let appended = false;
    const consume = async () => {
      for await (const _chunk of multipart.body) {
        if (!appended) {
          appended = true;
          await appendFile(file, Buffer.alloc(1000, 2));
        }
      }
    };
    const error = await consume().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('changed during upload');
  });

  it('aborts the request with a ValidationError when the file changes while it is being sent', async () => {
    const file = path.join(dir, 'recording-in-progress.wav');
    await writeFile(file, Buffer.alloc(4 * 1024 * 1024, 1));
    server = await startServer(async (request, response) => {
      let seen = 0;
      for await (const chunk of request) {
        seen += (chunk as Buffer).length;
        if (seen > 100_000 && seen < 200_000) await appendFile(file, 'more audio');
      }
      sendJson(response, 200, { uploadReceipt: 'should-not-happen' });
    });
    client = createHttpClient({ baseUrl: server.url, apiKey: 'k_1', auth: 'bearer', sleep: async () => {} });
    opened = await openRegularFile(file);
    const upload = opened;
    const error = await client
      .request({
        method: 'POST',
        path: '/uploads',
        multipart: () =>
          createMultipartFileBody({
            field: 'file',
            file: upload,
            filename: 'x.wav',
            contentType: 'audio/wav',
          }),
        schema: Receipt,
        idempotent: false,
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('changed during upload');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps memory flat while uploading a 200 MB file', async () => {
    const file = path.join(dir, 'big.wav');
    await writeFile(file, '');
    const size = 200 * 1024 * 1024;
    await truncate(file, size);
    let counted = 0;
    server = await startServer(async (request, response) => {
      for await (const chunk of request) counted += (chunk as Buffer).length;
      sendJson(response, 200, { uploadReceipt: 'big' });
    });
    client = createHttpClient({ baseUrl: server.url, apiKey: 'k_1', auth: 'bearer' });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    opened = await openRegularFile(file);
    const upload = opened;
    try {
      const multipart = () =>
        createMultipartFileBody({
          field: 'file',
          file: upload,
          filename: 'big.wav',
          contentType: 'audio/wav',
        });
      const expectedLength = multipart().contentLength;
      await client.request({
        method: 'POST',
        path: '/uploads',
        multipart,
        schema: Receipt,
        idempotent: false,
      });
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(counted).toBe(expectedLength);
      expect(counted).toBeGreaterThan(size);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(60 * 1024 * 1024);
  });
});
