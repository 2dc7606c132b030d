import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { readMediaFixture } from '../src/media/media-fixtures.js';
import { createMediaClient } from './support/media-client.js';

const IV = '/api/imgvid/v1';
let sandbox: Sandbox;
let client: ReturnType<typeof createMediaClient>;

const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
const PNG = () => dataUrl(readMediaFixture('png'));

beforeAll(async () => {
  sandbox = await startSandbox({
    speed: 10,
    // Held: a job moves only when a test advances the clock, so each state is seen however slow the machine.
    clock: 'held',
    config: {
      media: {
        publicMedia: {
          'https://media.example/cat.png': { fixture: 'png' },
          'https://media.example/cat.jpg': { fixture: 'jpg' },
          'https://media.example/cat.webp': { fixture: 'webp' },
          '/uploads/cat.png': { fixture: 'png' },
          'https://media.example/moved.png': { redirect: 'https://media.example/cat.png' },
          'https://media.example/huge.png': { fixture: 'png', sizeBytes: 25 * 1024 * 1024 + 1 },
          'https://media.example/gone.png': { status: 404 },
          'https://media.example/clip.mp4': { fixture: 'mp4' },
          'https://rebind.example/cat.png': { fixture: 'png', resolvesTo: '169.254.169.254' },
          'https://media.example/fake.png': { base64: Buffer.from('GIF89a not really').toString('base64') },
        },
      },
    },
  });
  client = createMediaClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

const generate = (body: Record<string, unknown>, key?: string) =>
  client.call('POST', `${IV}/videos/generations`, { json: body, ...(key ? { key } : {}) });

describe('image-to-video', () => {
  it('runs queued → processing → done with defaults; video.url is absolute, only when done, and serves a real MP4', async () => {
    const started = await generate({ prompt: 'The cat blinks slowly', image: { url: PNG() } });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      request_id: expect.stringMatching(/^iv_/),
      status: 'queued',
      model: 'imgvid-standard',
    });
    const path = `${IV}/videos/${started.body.request_id}`;

    const queued = await client.call('GET', path);
    expect(queued.body).toMatchObject({
      request_id: started.body.request_id,
      status: 'queued',
      model: 'imgvid-standard',
    });
    expect(queued.body.video).toBeUndefined();

    sandbox.control.advance(200);
    const processing = await client.call('GET', path);
    expect(processing.body).toMatchObject({
      status: 'processing',
      progress: { percent: expect.any(Number), variant: 'distilled' },
    });
    expect(processing.body.video).toBeUndefined();
    expect(processing.body).toMatchObject({
      duration: 5,
      aspect_ratio: '16:9',
      resolution: '720p',
      seed: null,
    });

    client.finish();
    const done = await client.call('GET', path);
    expect(done.body.status).toBe('done');
    expect(done.body.error).toBeUndefined();
    expect(done.body.video.url).toMatch(new RegExp(`^${sandbox.url}${IV}/files/.+\\.mp4$`));

    const video = await client.call('GET', done.body.video.url, { key: undefined });
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(Number(video.headers.get('content-length'))).toBe(video.bytes.length);
    const metadata = await parseBuffer(video.bytes, { mimeType: 'video/mp4' });
    expect(metadata.format.duration).toBeGreaterThan(1.5);
    expect(sandbox.control.counters().imageToVideoJobs).toEqual({ user_1: 1 });
  });

  it('maps aliases to variants (full takes longer than distilled)', async () => {
    const distilled = await generate({
      model: 'imgvid-standard-fast',
      prompt: 'p',
      image: { url: PNG() },
      duration: 10,
    });
    const full = await generate({
      model: 'imgvid-standard-quality',
      prompt: 'p',
      image: { url: PNG() },
      duration: 10,
    });
    sandbox.control.advance(2500);
    const [a, b] = await Promise.all(
      [distilled, full].map(
        async (started) => (await client.call('GET', `${IV}/videos/${started.body.request_id}`)).body,
      ),
    );
    expect(a).toMatchObject({ model: 'imgvid-standard-fast', variant: 'distilled', status: 'done' });
    expect(b).toMatchObject({ model: 'imgvid-standard-quality', variant: 'full', status: 'processing' });
    for (const model of ['imgvid-standard-full', 'imgvid-standard-distilled', 'imgvid', 'imgvid-2.3']) {
      expect((await generate({ model, prompt: 'p', image: { url: PNG() } })).status).toBe(202);
    }
  });

  it('accepts every bound and form: 2 and 10 s, aspectRatio alias, 480p, JPG/WEBP URLs, /uploads path, seeds', async () => {
    const bodies = [
      { duration: 2, image: { url: 'https://media.example/cat.jpg' } },
      { duration: 10, aspectRatio: '9:16', image: { url: 'https://media.example/cat.webp' } },
      { aspect_ratio: '1:1', resolution: '480p', image: { url: '/uploads/cat.png' } },
      { seed: -1, image: { url: dataUrl(readMediaFixture('jpg'), 'image/jpeg') } },
    ];
    for (const body of bodies) {
      const started = await generate({ prompt: 'move', ...body });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
    }
    const clamped = await generate({ prompt: 'move', image: { url: PNG() }, seed: 99_999_999_999 });
    const status = await client.call('GET', `${IV}/videos/${clamped.body.request_id}`);
    expect(status.body.seed).toBe(2_147_483_647);
  });

  const invalid: [string, Record<string, unknown>, number, RegExp][] = [
    ['missing prompt', { image: { url: 'https://media.example/cat.png' } }, 400, /prompt is required/],
    ['missing image', { prompt: 'p' }, 400, /image.url is required/],
    [
      'unknown model',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, model: 'imgvid-ultra' },
      400,
      /model must be one of/,
    ],
    [
      'duration 1',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, duration: 1 },
      400,
      /2 to 10/,
    ],
    [
      'duration 11',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, duration: 11 },
      400,
      /2 to 10/,
    ],
    [
      'duration as a string',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, duration: '5' },
      400,
      /integer/,
    ],
    [
      'aspect ratio 4:3',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, aspect_ratio: '4:3' },
      400,
      /aspect_ratio/,
    ],
    [
      'resolution 1080p',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, resolution: '1080p' },
      400,
      /resolution/,
    ],
    [
      'fractional seed',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, seed: 0.5 },
      400,
      /seed/,
    ],
    ['private IP host', { prompt: 'p', image: { url: 'http://10.0.0.5/cat.png' } }, 400, /private network/],
    ['localhost', { prompt: 'p', image: { url: 'http://localhost:8080/cat.png' } }, 400, /private network/],
    [
      'metadata address in decimal form',
      { prompt: 'p', image: { url: 'http://2852039166/latest' } },
      400,
      /private network/,
    ],
    [
      'host resolving to a private address',
      { prompt: 'p', image: { url: 'https://rebind.example/cat.png' } },
      400,
      /private network address/,
    ],
    ['redirect', { prompt: 'p', image: { url: 'https://media.example/moved.png' } }, 400, /redirect/],
    ['oversize image', { prompt: 'p', image: { url: 'https://media.example/huge.png' } }, 413, /too large/],
    ['error status', { prompt: 'p', image: { url: 'https://media.example/gone.png' } }, 400, /HTTP 404/],
    [
      'a video instead of an image',
      { prompt: 'p', image: { url: 'https://media.example/clip.mp4' } },
      400,
      /JPG, PNG or WEBP/,
    ],
    [
      'a GIF named .png',
      { prompt: 'p', image: { url: 'https://media.example/fake.png' } },
      400,
      /JPG, PNG or WEBP/,
    ],
    ['ftp URL', { prompt: 'p', image: { url: 'ftp://media.example/cat.png' } }, 400, /http/],
    ['unknown upload', { prompt: 'p', image: { url: '/uploads/none.png' } }, 400, /no such upload/],
    ['other same-site path', { prompt: 'p', image: { url: '/etc/passwd' } }, 400, /\/uploads/],
    [
      'unconfigured public URL',
      { prompt: 'p', image: { url: 'https://elsewhere.example/a.png' } },
      400,
      /publicMedia/,
    ],
    ['non-base64 data URL', { prompt: 'p', image: { url: 'data:image/png,abc' } }, 400, /base64/],
    [
      'unknown field',
      { prompt: 'p', image: { url: 'https://media.example/cat.png' }, fps: 24 },
      400,
      /unknown field fps/,
    ],
  ];
  for (const [name, body, status, message] of invalid) {
    it(`refuses ${name} (${status}) and creates no job`, async () => {
      const result = await generate(body);
      expect(result.status).toBe(status);
      expect(result.body.error).toMatch(message);
      expect(sandbox.control.counters().imageToVideoJobs ?? {}).toEqual({});
    });
  }

  it('refuses a data URL image above 25 MiB', async () => {
    const big = Buffer.alloc(25 * 1024 * 1024 + 10);
    readMediaFixture('png').copy(big);
    const result = await generate({ prompt: 'p', image: { url: dataUrl(big) } });
    expect(result.status).toBe(413);
  });

  it('ends failed (error string) or canceled on the documented prompt markers', async () => {
    const failed = await generate({ prompt: 'explode [sandbox:fail]', image: { url: PNG() } });
    const canceled = await generate({ prompt: 'stop [sandbox:cancel]', image: { url: PNG() } });
    client.finish();
    const failedStatus = (await client.call('GET', `${IV}/videos/${failed.body.request_id}`)).body;
    expect(failedStatus).toMatchObject({
      status: 'failed',
      error: expect.any(String),
      model: 'imgvid-standard',
    });
    expect(failedStatus.video).toBeUndefined();
    const canceledStatus = (await client.call('GET', `${IV}/videos/${canceled.body.request_id}`)).body;
    expect(canceledStatus.status).toBe('canceled');
    expect(canceledStatus.video).toBeUndefined();
  });

  it('authenticates with x-api-key only and hides other accounts’ jobs', async () => {
    const started = await generate({ prompt: 'p', image: { url: PNG() } });
    expect(
      (await client.call('GET', `${IV}/videos/${started.body.request_id}`, { key: sandbox.apiKey2 })).status,
    ).toBe(404);
    expect(
      (await client.call('GET', `${IV}/videos/${started.body.request_id}`, { key: undefined })).status,
    ).toBe(401);
    expect((await client.call('GET', `${IV}/videos/iv_missing`)).status).toBe(404);
  });

  it('applies faults to its routes', async () => {
    sandbox.control.setFaults([
      { match: { path: '^/api/imgvid/' }, kind: 'status', status: 503, retryAfter: '3', count: 1 },
    ]);
    const faulted = await generate({ prompt: 'p', image: { url: PNG() } });
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get('retry-after')).toBe('3');
    expect(sandbox.control.counters().imageToVideoJobs ?? {}).toEqual({});
    expect((await generate({ prompt: 'p', image: { url: PNG() } })).status).toBe(202);
  });
});
