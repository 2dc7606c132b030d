import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { readMediaFixture } from '../src/media/media-fixtures.js';
import { createMediaClient } from './support/media-client.js';

const CV = '/api/modelhub/v1';
let sandbox: Sandbox;
let client: ReturnType<typeof createMediaClient>;

beforeAll(async () => {
  sandbox = await startSandbox({
    speed: 10,
    // Held: a job moves only when a test advances the clock, so each state is seen however slow the machine.
    clock: 'held',
    config: {
      users: [
        { id: 'alice', team: 'studio', keys: [{ key: 'pm_live_alice_key_1' }] },
        { id: 'bob', keys: [{ key: 'pm_live_bob_key_1' }] },
      ],
      media: {
        publicMedia: {
          'https://media.example/cat.png': { fixture: 'png' },
          'https://media.example/voice.wav': { fixture: 'wav' },
          'https://media.example/clip.mp4': { fixture: 'mp4' },
          'https://media.example/moved.png': { redirect: 'https://media.example/cat.png' },
        },
      },
    },
  });
  client = createMediaClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

const generate = (body: Record<string, unknown>, key?: string) =>
  client.call('POST', `${CV}/videos/generations`, { json: body, ...(key ? { key } : {}) });

describe('GET /models', () => {
  it('lists the catalog envelope with models of several shapes, required fields and uri parameters', async () => {
    const { status, body } = await client.call('GET', `${CV}/models`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'list', provider: 'modelhub', base_url: `${CV}/videos` });
    const categories = body.data.map((model: { category: string }) => model.category);
    expect(categories).toEqual(expect.arrayContaining(['text-to-video', 'image-to-video', 'audio-to-video']));
    for (const model of body.data) {
      expect(model.id).toMatch(/^hub:/);
      expect(model).toEqual(
        expect.objectContaining({
          title: expect.any(String),
          required: expect.any(Array),
          parameters: expect.any(Array),
        }),
      );
      for (const parameter of model.parameters) {
        expect(parameter).toEqual(
          expect.objectContaining({
            name: expect.any(String),
            type: expect.any(String),
            required: expect.any(Boolean),
          }),
        );
      }
      for (const name of model.required) {
        expect(
          model.parameters.find((parameter: { name: string }) => parameter.name === name)?.required,
        ).toBe(true);
      }
    }
    const animate = body.data.find((model: { id: string }) => model.id === 'hub:image-animate-pro');
    expect(
      animate.parameters.find((parameter: { name: string }) => parameter.name === 'image_url'),
    ).toMatchObject({ format: 'uri', required: true });
  });

  it('needs x-api-key', async () => {
    expect((await client.call('GET', `${CV}/models`, { key: undefined })).status).toBe(401);
  });
});

describe('POST /videos/generations', () => {
  it('runs a text-to-video job queued → processing → done; model appears once processing; relative video.url serves an MP4', async () => {
    const started = await generate({ model: 'hub:text-to-video-lite', prompt: 'A paper boat on a river' });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      request_id: expect.stringMatching(/^cv_/),
      status: 'queued',
      model: 'hub:text-to-video-lite',
      provider: 'modelhub',
    });
    const path = `${CV}/videos/${started.body.request_id}`;
    const queued = (await client.call('GET', path)).body;
    expect(queued).toMatchObject({
      request_id: started.body.request_id,
      status: 'queued',
      provider: 'modelhub',
    });
    expect(queued.model).toBeUndefined();
    expect(queued.video).toBeUndefined();

    sandbox.control.advance(300);
    const processing = (await client.call('GET', path)).body;
    expect(processing).toMatchObject({
      status: 'processing',
      model: 'hub:text-to-video-lite',
      progress: { percent: expect.any(Number) },
    });
    expect(processing.video).toBeUndefined();
    expect(processing.progress.parameters).toMatchObject({
      prompt: 'A paper boat on a river',
      duration: 5,
      resolution: '720p',
      aspect_ratio: '16:9',
      enhance_prompt: true,
    });

    client.finish();
    const done = (await client.call('GET', path)).body;
    expect(done).toMatchObject({ status: 'done', model: 'hub:text-to-video-lite', provider: 'modelhub' });
    expect(done.video.url).toMatch(/^\/api\/modelhub\/v1\/files\/.+\.mp4$/);
    const video = await client.call('GET', done.video.url, { key: undefined });
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(video.bytes.equals(readMediaFixture('mp4'))).toBe(true);
    expect(sandbox.control.counters().catalogVideoJobs).toEqual({ alice: 1 });
    expect(sandbox.control.counters().teamUsage).toEqual({ 'studio:catalogVideoJobs': 1 });
  });

  it('accepts bare ids, fills URI parameters from inputs, and lets options override the mapping', async () => {
    const started = await generate({
      model: 'image-animate-pro',
      prompt: 'The cat turns its head',
      inputs: {
        images: [
          { url: 'https://media.example/cat.png' },
          { url: `data:image/png;base64,${readMediaFixture('png').toString('base64')}` },
        ],
      },
      duration: '7s',
      resolution: '720p',
      options: { duration: '4', motion_strength: '0.8' },
      seed: 42,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.model).toBe('hub:image-animate-pro');
    sandbox.control.advance(300);
    const { body } = await client.call('GET', `${CV}/videos/${started.body.request_id}`);
    expect(body.progress.parameters).toMatchObject({
      image_url: 'https://media.example/cat.png',
      end_image_url: expect.stringMatching(/^data:image\/png/),
      duration: 4,
      motion_strength: 0.8,
      resolution: '720p',
      seed: 42,
    });
  });

  it('coerces duration hints per model (snapped to allowed values, clamped to ranges, defaulted when unreadable)', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ model: 'text-to-video-lite', prompt: 'p', duration: 8 }, 10],
      [{ model: 'text-to-video-lite', prompt: 'p', duration: '6' }, 5],
      [
        {
          model: 'image-animate-pro',
          prompt: 'p',
          inputs: { images: [{ url: 'https://media.example/cat.png' }] },
          duration: 30,
        },
        10,
      ],
      [
        {
          model: 'image-animate-pro',
          prompt: 'p',
          inputs: { images: [{ url: 'https://media.example/cat.png' }] },
          duration: 'long',
        },
        5,
      ],
    ];
    for (const [body, expected] of cases) {
      const started = await generate(body);
      sandbox.control.advance(300);
      const status = await client.call('GET', `${CV}/videos/${started.body.request_id}`);
      expect(status.body.progress.parameters.duration).toBe(expected);
    }
  });

  it('clamps non-negative seeds to the safe range; -1 means random', async () => {
    const high = await generate({ model: 'text-to-video-lite', prompt: 'p', seed: 9_000_000_000 });
    const random = await generate({
      model: 'text-to-video-lite',
      prompt: 'p',
      seed: -1,
      aspectRatio: '9:16',
    });
    sandbox.control.advance(300);
    expect((await client.call('GET', `${CV}/videos/${high.body.request_id}`)).body.progress).toMatchObject({
      seed: 2_147_483_647,
    });
    const randomStatus = (await client.call('GET', `${CV}/videos/${random.body.request_id}`)).body.progress;
    expect(randomStatus.seed).toBeNull();
    expect(randomStatus.parameters.aspect_ratio).toBe('9:16');
  });

  it('takes audio input for the audio-driven model', async () => {
    const started = await generate({
      model: 'hub:talking-avatar',
      inputs: {
        images: [{ url: 'https://media.example/cat.png' }],
        audios: [{ url: 'https://media.example/voice.wav' }],
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const restyle = await generate({
      model: 'video-restyle',
      prompt: 'watercolor',
      inputs: { videos: [{ url: 'https://media.example/clip.mp4' }] },
    });
    expect(restyle.status, JSON.stringify(restyle.body)).toBe(202);
  });

  const invalid: [string, Record<string, unknown>, number, RegExp][] = [
    ['missing model', { prompt: 'p' }, 400, /model is required/],
    ['unknown model', { model: 'hub:nope', prompt: 'p' }, 400, /unknown model/],
    ['missing prompt', { model: 'text-to-video-lite' }, 400, /missing required field.*prompt/],
    ['missing image', { model: 'image-animate-pro', prompt: 'p' }, 400, /image_url/],
    [
      'missing audio',
      { model: 'talking-avatar', inputs: { images: [{ url: 'https://media.example/cat.png' }] } },
      400,
      /audio_url/,
    ],
    [
      'too many images',
      {
        model: 'text-to-video-lite',
        prompt: 'p',
        inputs: { images: [{ url: 'https://media.example/cat.png' }] },
      },
      400,
      /at most 0 image inputs/,
    ],
    [
      'unknown option',
      { model: 'text-to-video-lite', prompt: 'p', options: { fps: 30 } },
      400,
      /unknown option fps/,
    ],
    [
      'option of the wrong type',
      { model: 'text-to-video-lite', prompt: 'p', options: { enhance_prompt: 'maybe' } },
      400,
      /must be a boolean/,
    ],
    [
      'option outside its enum',
      { model: 'text-to-video-lite', prompt: 'p', options: { duration: 7 } },
      400,
      /one of 5, 10/,
    ],
    [
      'option out of range',
      {
        model: 'image-animate-pro',
        prompt: 'p',
        inputs: { images: [{ url: 'https://media.example/cat.png' }] },
        options: { motion_strength: 2 },
      },
      400,
      /at most 1/,
    ],
    [
      'resolution not offered',
      { model: 'text-to-video-lite', prompt: 'p', resolution: '1080p' },
      400,
      /480p, 720p/,
    ],
    [
      'aspect ratio not offered',
      { model: 'text-to-video-lite', prompt: 'p', aspect_ratio: '4:3' },
      400,
      /aspect_ratio/,
    ],
    [
      'private image host',
      {
        model: 'image-animate-pro',
        prompt: 'p',
        inputs: { images: [{ url: 'http://192.168.0.10/cat.png' }] },
      },
      400,
      /private network/,
    ],
    [
      'redirected image',
      {
        model: 'image-animate-pro',
        prompt: 'p',
        inputs: { images: [{ url: 'https://media.example/moved.png' }] },
      },
      400,
      /redirect/,
    ],
    [
      'audio where an image belongs',
      {
        model: 'image-animate-pro',
        prompt: 'p',
        inputs: { images: [{ url: 'https://media.example/voice.wav' }] },
      },
      400,
      /not a JPG/,
    ],
    ['fractional seed', { model: 'text-to-video-lite', prompt: 'p', seed: 1.5 }, 400, /seed/],
    [
      'unknown field',
      { model: 'text-to-video-lite', prompt: 'p', provider_key: 'x' },
      400,
      /unknown field provider_key/,
    ],
    [
      'unknown input group',
      { model: 'text-to-video-lite', prompt: 'p', inputs: { masks: [] } },
      400,
      /unknown field masks/,
    ],
  ];
  for (const [name, body, status, message] of invalid) {
    it(`refuses ${name}`, async () => {
      const result = await generate(body);
      expect(result.status).toBe(status);
      expect(result.body.error).toMatch(message);
      expect(sandbox.control.counters().catalogVideoJobs ?? {}).toEqual({});
    });
  }

  it('ends failed with an error string, or canceled, on the documented markers', async () => {
    const failed = await generate({ model: 'text-to-video-lite', prompt: '[sandbox:fail]' });
    const canceled = await generate({ model: 'text-to-video-lite', prompt: '[sandbox:cancel]' });
    client.finish();
    const failedStatus = (await client.call('GET', `${CV}/videos/${failed.body.request_id}`)).body;
    expect(failedStatus).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/generation failed/),
    });
    expect(failedStatus.video).toBeUndefined();
    expect((await client.call('GET', `${CV}/videos/${canceled.body.request_id}`)).body.status).toBe(
      'canceled',
    );
  });

  it('hides another account’s job', async () => {
    const started = await generate({ model: 'text-to-video-lite', prompt: 'p' });
    expect(
      (await client.call('GET', `${CV}/videos/${started.body.request_id}`, { key: 'pm_live_bob_key_1' }))
        .status,
    ).toBe(404);
  });

  it('creates exactly one job when the answer is lost after creation (reset-after)', async () => {
    sandbox.control.setFaults([
      { match: { method: 'POST', path: 'generations$' }, kind: 'reset-after', count: 1 },
    ]);
    await expect(generate({ model: 'text-to-video-lite', prompt: 'p' })).rejects.toThrow();
    expect(sandbox.control.counters().catalogVideoJobs).toEqual({ alice: 1 });
  });
});
