/**
 * Flashcard starts that can be resent without a second job, URLs that must not reach private networks,
 * catalog validation before any POST, and downloads that never hand the key to another origin.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaDownloader } from '../src/download/download-media.js';
import { createFileAccess, createPolymodal, type Polymodal, ValidationError } from '../src/index.js';
import { readBody, sendJson, startServer, type TestServer } from './support/start-server.js';

const KEY = 'pm_live_mediakey';
const servers: TestServer[] = [];
let polymodal: Polymodal | undefined;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'media-'));
});
afterEach(async () => {
  await polymodal?.close();
  polymodal = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function open(url: string): Polymodal {
  polymodal = createPolymodal({
    baseUrl: url,
    apiKey: KEY,
    ledger: false,
    files: createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') }),
    http: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  return polymodal;
}

describe('flashcards client', () => {
  it('makes relative clip and video URLs of a result absolute against the platform', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, {
        job_id: 'vf_9',
        status: 'done',
        ready: true,
        successful: true,
        result: {
          learning_direction: 'thai_to_chinese',
          source_language: 'th',
          target_language: 'zh',
          media: { original_video_url: '/api/video-flashcards/v1/files/original.mp4' },
          segments: [
            {
              index: 1,
              start: 0,
              end: 1,
              text: 'สวัสดี',
              video: {
                original_segment_url: 'files/clip-1.mp4',
                rendered_segment_url: 'https://cdn.example/r.mp4',
              },
            },
          ],
        },
      }),
    );
    const { flashcards } = open(server.url);
    const job = await flashcards.retrieve('vf_9');
    expect(job.result?.media?.original_video_url).toBe(
      `${server.url}/api/video-flashcards/v1/files/original.mp4`,
    );
    expect(job.result?.segments[0]?.video?.original_segment_url).toBe(`${server.url}/files/clip-1.mp4`);
    expect(job.result?.segments[0]?.video?.rendered_segment_url).toBe('https://cdn.example/r.mp4');
  });

  it('newJob (forceNew) sends a fresh idempotency key, so the platform starts a new job', async () => {
    const keys: string[] = [];
    const server = await serve(async (request, response) => {
      const body = JSON.parse(await readBody(request)) as { idempotency_key: string };
      keys.push(body.idempotency_key);
      sendJson(response, 200, { success: true, job_id: `vf_${keys.length}`, status: 'queued' });
    });
    const { flashcards } = open(server.url);
    const url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
    await flashcards.startFromUrl(url, { learning_direction: 'thai_to_chinese' });
    await flashcards.startFromUrl(url, { learning_direction: 'thai_to_chinese' }, { forceNew: true });
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('resends a start cut off after it arrived with the same idempotency key, so no second job appears', async () => {
    const keys: string[] = [];
    const server = await serve(async (request, response) => {
      const body = JSON.parse(await readBody(request)) as { idempotency_key: string };
      keys.push(body.idempotency_key);
      if (keys.length === 1) {
        request.socket.destroy();
        return;
      }
      sendJson(response, 200, { success: true, job_id: 'vf_1', status: 'queued' });
    });
    const { flashcards } = open(server.url);
    const started = await flashcards.startFromUrl('https://www.youtube.com/watch?v=dQw4w9WgXcQ', {
      learning_direction: 'thai_to_chinese',
    });
    expect(started.jobId).toBe('vf_1');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]!.length).toBeLessThanOrEqual(180);
    const other = await flashcards.startFromUrl('https://www.youtube.com/watch?v=dQw4w9WgXcQ', {
      learning_direction: 'thai_to_chinese',
      max_words_per_segment: 5,
    });
    expect(other.jobId).toBe('vf_1');
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('refuses bad URLs, pairs and ranges before sending anything', async () => {
    const server = await serve((_request, response) => sendJson(response, 500, {}));
    const { flashcards } = open(server.url);
    const direction = { learning_direction: 'thai_to_chinese' } as const;
    await expect(flashcards.startFromUrl('https://vimeo.com/123', direction)).rejects.toThrow(
      /not a YouTube video URL/,
    );
    for (const url of [
      'http://127.0.0.1/a.mp4',
      'http://[::1]/a.mp4',
      'http://169.254.169.254/a.mp4',
      'http://intranet/a.mp4',
      'file:///etc/passwd',
    ]) {
      await expect(
        flashcards.startFromUrl(url, { ...direction, source_type: 'direct_video_url' }),
      ).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(
      flashcards.startFromUrl('https://youtu.be/dQw4w9WgXcQ', { ...direction, target_language: 'vi' }),
    ).rejects.toThrow(/does not match/);
    await expect(
      flashcards.startFromUrl('https://youtu.be/dQw4w9WgXcQ', { ...direction, max_words_per_segment: 81 }),
    ).rejects.toBeInstanceOf(ValidationError);
    await writeFile(path.join(dir, 'notes.mp4'), 'just text');
    await expect(flashcards.startFromFile(path.join(dir, 'notes.mp4'), direction)).rejects.toThrow(
      /does not look like/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('video clients', () => {
  it('checks a catalog request against the live catalog and sends no POST when it does not fit', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, {
        object: 'list',
        provider: 'modelhub',
        data: [
          {
            id: 'hub:animate',
            title: 'Animate',
            category: 'image-to-video',
            required: ['prompt', 'image_url'],
            parameters: [
              { name: 'prompt', type: 'string', required: true },
              { name: 'image_url', type: 'string', required: true, format: 'uri' },
              { name: 'strength', type: 'number', required: false, minimum: 0, maximum: 1 },
            ],
          },
        ],
      }),
    );
    const { catalogVideo } = open(server.url);
    await expect(catalogVideo.submit({ model: 'animate', prompt: 'go' })).rejects.toThrow(
      /image_url: required/,
    );
    await expect(
      catalogVideo.submit({
        model: 'animate',
        prompt: 'go',
        inputs: { images: [{ url: 'https://cdn.example/a.png' }] },
        options: { strength: 2 },
      }),
    ).rejects.toThrow(/options.strength: at most 1/);
    await expect(
      catalogVideo.submit({
        model: 'animate',
        prompt: 'go',
        inputs: { images: [{ url: 'https://cdn.example/a.png' }, { url: 'https://cdn.example/b.png' }] },
      }),
    ).rejects.toThrow(/at most 1 image/);
    await expect(catalogVideo.submit({ model: 'other', prompt: 'go' })).rejects.toThrow(
      /not in the video catalog/,
    );
    // "integer or string" is a number of seconds either way: "NaN" would start a paid job with the default.
    for (const duration of ['NaN', 'five', '5.5', -3, 0]) {
      await expect(
        catalogVideo.submit({
          model: 'animate',
          prompt: 'go',
          inputs: { images: [{ url: 'https://cdn.example/a.png' }] },
          duration: duration as number,
        }),
      ).rejects.toThrow(/duration: must be a whole number of seconds/);
    }
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('image-to-video refuses out-of-range values and private image hosts before sending', async () => {
    const server = await serve((_request, response) => sendJson(response, 500, {}));
    const { imageToVideo } = open(server.url);
    await expect(
      imageToVideo.submit({ prompt: 'x', image: { url: 'https://cdn.example/a.png' }, duration: 11 }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      imageToVideo.submit({ prompt: 'x', image: { url: 'http://10.1.2.3/a.png' } }),
    ).rejects.toThrow(/private/);
    await expect(
      imageToVideo.submit({ prompt: 'x', image: { url: 'http://localhost/a.png' } }),
    ).rejects.toThrow(/private/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('media downloader', () => {
  const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(300)]);

  it('sends no key at first, and the key only to the platform origin when it asks', async () => {
    const platform = await serve((request, response) => {
      if (!request.headers['x-api-key']) {
        sendJson(response, 401, { error: 'key needed' });
        return;
      }
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mp4.length) });
      response.end(mp4);
    });
    const files = createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') });
    const downloader = createMediaDownloader({
      platform: { baseUrl: `${platform.url}/prefix`, authHeaders: () => ({ 'x-api-key': KEY }) },
      files,
    });
    const saved = await downloader.download({ url: '/files/a.mp4', kind: 'video', fileName: 'a.mp4' });
    expect(saved.contentType).toBe('video/mp4');
    expect(platform.requests.map((request) => [request.url, request.headers['x-api-key']])).toEqual([
      ['/prefix/files/a.mp4', undefined],
      ['/prefix/files/a.mp4', KEY],
    ]);
    await downloader.close();
  });

  it('never carries the key through a redirect, refuses private hops, wrong types and oversize files, and leaves nothing behind', async () => {
    const platform = await serve((request, response) => {
      if (request.url === '/to-private') {
        response.writeHead(302, { location: 'http://10.0.0.1/secret.mp4' });
        response.end();
      } else if (request.url === '/html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>login</html>');
      } else if (request.url === '/disguised') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.end(Buffer.alloc(400, 0x41));
      } else {
        response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mp4.length) });
        response.end(mp4);
      }
    });
    const files = createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') });
    const downloader = createMediaDownloader({
      platform: { baseUrl: platform.url, authHeaders: () => ({ 'x-api-key': KEY }) },
      files,
    });
    await expect(
      downloader.download({ url: '/to-private', kind: 'video', fileName: 'p.mp4' }),
    ).rejects.toThrow(/private/);
    await expect(downloader.download({ url: '/html', kind: 'video', fileName: 'h.mp4' })).rejects.toThrow(
      /text\/html/,
    );
    await expect(
      downloader.download({ url: '/disguised', kind: 'video', fileName: 'd.mp4' }),
    ).rejects.toThrow(/not a video/);
    await expect(
      downloader.download({ url: '/ok', kind: 'video', fileName: 'o.mp4', maxBytes: 100 }),
    ).rejects.toThrow(/larger than/);
    await expect(
      downloader.download({ url: 'https://169.254.169.254/x.mp4', kind: 'video', fileName: 'm.mp4' }),
    ).rejects.toThrow(/private/);
    expect(platform.requests.every((request) => request.headers['x-api-key'] === undefined)).toBe(true);
    expect(await readdir(path.join(dir, 'out')).catch(() => [])).toEqual([]);
    await downloader.close();
  });
});
