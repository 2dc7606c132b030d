/**
 * Streamed multipart uploads through the HTTP client: exact bytes and Content-Length on the wire, a file
 * that changes mid-upload, the opened file (not the path) sent on every attempt, flat memory for a
 * 200 MB file, chunk buffers reused only where the consumer is known to be done with them, and the abort.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type OpenedFile, openRegularFile } from '../src/files.js';
import type { MultipartBody } from '../src/http/http-client.js';
import { createHttpClient, type HttpClient } from '../src/http.js';
import { ValidationError } from '../src/index.js';
import { createMultipartFileBody } from '../src/upload/create-multipart-file-body.js';
import { FILE_CHUNK_BYTES } from '../src/upload/multipart-file-stream.js';
import { sendJson, startServer, type TestServer } from './support/start-server.js';

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
    // Far more than the client reads ahead and loopback's socket buffers hold (a few MiB) while the server
    // waits on its append, so the change lands before the client reaches the end of the file (with a file
    // of two chunks, it could have sent everything first).
    await writeFile(file, '');
    await truncate(file, 16 * FILE_CHUNK_BYTES);
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

/** The parts of a multipart body, split at its boundary: each part's headers and exact bytes. */
function partsOf(body: Buffer, contentType: string): { headers: string; bytes: Buffer }[] {
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1] ?? '';
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The body starts with the first delimiter minus its CRLF; prefix one so all delimiters look alike.
  const whole = Buffer.concat([Buffer.from('\r\n'), body]);
  const parts: { headers: string; bytes: Buffer }[] = [];
  let at = whole.indexOf(delimiter);
  for (;;) {
    const start = at + delimiter.length;
    if (whole.subarray(start, start + 2).toString() === '--') break;
    const next = whole.indexOf(delimiter, start);
    const headerEnd = whole.indexOf('\r\n\r\n', start);
    parts.push({
      headers: whole.subarray(start, headerEnd).toString(),
      bytes: whole.subarray(headerEnd + 4, next),
    });
    at = next;
  }
  return parts;
}

describe('multipart upload: chunk buffers', () => {
  /** Sizes that are not multiples of the chunk size, and span more chunks than the reused buffers. */
  const FIRST_BYTES = 9 * FILE_CHUNK_BYTES + 12_345;
  const SECOND_BYTES = 3 * FILE_CHUNK_BYTES + 7;

  async function receiveSlowly(request: IncomingMessage): Promise<Buffer> {
    // A reader that lags behind now and then, so the client's socket fills and waits for drain.
    const chunks: Buffer[] = [];
    let sinceLastPause = 0;
    for await (const chunk of request) {
      chunks.push(chunk as Buffer);
      sinceLastPause += (chunk as Buffer).length;
      if (sinceLastPause >= FILE_CHUNK_BYTES) {
        sinceLastPause = 0;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    return Buffer.concat(chunks);
  }

  async function uploadTwoFiles(dispatcher?: Agent) {
    const first = randomBytes(FIRST_BYTES);
    const second = randomBytes(SECOND_BYTES);
    const firstFile = path.join(dir, 'ring-first.wav');
    const secondFile = path.join(dir, 'ring-second.wav');
    await writeFile(firstFile, first);
    await writeFile(secondFile, second);
    let received: Buffer = Buffer.alloc(0);
    let contentType = '';
    server = await startServer(async (request, response) => {
      contentType = request.headers['content-type'] ?? '';
      received = await receiveSlowly(request);
      sendJson(response, 200, { uploadReceipt: 'ring' });
    });
    client = createHttpClient({
      baseUrl: server.url,
      apiKey: 'k_1',
      auth: 'bearer',
      ...(dispatcher ? { dispatcher } : {}),
    });
    opened = await openRegularFile(firstFile);
    const upload = opened;
    const progress: number[] = [];
    const allocations = vi.spyOn(Buffer, 'allocUnsafeSlow');
    let chunkBuffers: number;
    try {
      await client.request({
        method: 'POST',
        path: '/uploads',
        multipart: () =>
          createMultipartFileBody({
            field: 'file',
            file: upload,
            filename: 'first.wav',
            contentType: 'audio/wav',
            // The second file by path: the body opens (and closes) it itself.
            additionalFiles: [
              { field: 'reference', path: secondFile, filename: 'second.wav', contentType: 'audio/wav' },
            ],
            onProgress: (sent) => progress.push(sent),
          }),
        schema: Receipt,
        idempotent: false,
      });
      chunkBuffers = allocations.mock.calls.filter(([size]) => size === FILE_CHUNK_BYTES).length;
    } finally {
      allocations.mockRestore();
    }
    const parts = partsOf(received, contentType);
    expect(parts.map((part) => /name="([^"]+)"/.exec(part.headers)?.[1])).toEqual(['file', 'reference']);
    expect(parts[0]?.bytes.equals(first)).toBe(true);
    expect(parts[1]?.bytes.equals(second)).toBe(true);
    expect(progress[0]).toBe(0);
    expect(progress.every((sent, index) => index === 0 || sent >= (progress[index - 1] as number))).toBe(
      true,
    );
    expect(progress.at(-1)).toBe(FIRST_BYTES + SECOND_BYTES);
    return { chunkBuffers };
  }

  // 10 + 4 chunks of two files.
  const CHUNKS = Math.ceil(FIRST_BYTES / FILE_CHUNK_BYTES) + Math.ceil(SECOND_BYTES / FILE_CHUNK_BYTES);

  it('sends files larger than its reused buffers intact, reusing them through its own agent', async () => {
    const { chunkBuffers } = await uploadTwoFiles();
    // Flat memory: a few buffers go round, instead of one per chunk.
    expect(chunkBuffers).toBeGreaterThan(0);
    expect(chunkBuffers).toBeLessThanOrEqual(CHUNKS / 2);
  });

  it("gives a caller's own dispatcher a fresh buffer per chunk, and the files arrive intact", async () => {
    const agent = new Agent();
    try {
      const { chunkBuffers } = await uploadTwoFiles(agent);
      expect(chunkBuffers).toBeGreaterThanOrEqual(CHUNKS);
    } finally {
      await agent.close();
    }
  });

  it('hands a consumer that pauses, resumes and keeps every chunk bytes that stay as they were read', async () => {
    const file = path.join(dir, 'kept.wav');
    const content = randomBytes(5 * FILE_CHUNK_BYTES + 99);
    await writeFile(file, content);
    opened = await openRegularFile(file);
    const multipart = createMultipartFileBody({
      field: 'file',
      file: opened,
      filename: 'kept.wav',
      contentType: 'audio/wav',
    });
    // It pauses after each chunk and resumes a moment later (as a pipe into a slow transform does), yet
    // it still holds every chunk: nothing it was given may be overwritten.
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      multipart.body.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        multipart.body.pause();
        setImmediate(() => multipart.body.resume());
      });
      multipart.body.once('end', resolve);
      multipart.body.once('error', reject);
    });
    const body = Buffer.concat(chunks);
    expect(body.length).toBe(multipart.contentLength);
    expect(partsOf(body, multipart.contentType)[0]?.bytes.equals(content)).toBe(true);
  });

  it("stops sending at the caller's abort and destroys the body", async () => {
    const file = path.join(dir, 'aborted.wav');
    await writeFile(file, '');
    await truncate(file, 64 * FILE_CHUNK_BYTES);
    let arrived: () => void = () => {};
    const someArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    server = await startServer(async (request) => {
      // Takes the first bytes, then stops reading: the upload can only end by the abort.
      request.once('data', () => {
        request.pause();
        arrived();
      });
    });
    client = createHttpClient({ baseUrl: server.url, apiKey: 'k_1', auth: 'bearer' });
    opened = await openRegularFile(file);
    const upload = opened;
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    let made: MultipartBody | undefined;
    const pending = client.request({
      method: 'POST',
      path: '/uploads',
      multipart: () => {
        made = createMultipartFileBody({
          field: 'file',
          file: upload,
          filename: 'a.wav',
          contentType: 'audio/wav',
        });
        return made;
      },
      schema: Receipt,
      idempotent: false,
      signal: controller.signal,
    });
    await someArrived;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(made?.body.destroyed).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});
