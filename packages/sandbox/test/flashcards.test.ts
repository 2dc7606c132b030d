import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, type SandboxConfig, startSandbox } from '../src/index.js';
import { readMediaFixture } from '../src/media/media-fixtures.js';
import { createMediaClient } from './support/media-client.js';

const VF = '/api/video-flashcards/v1';
const WATCH = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
let sandbox: Sandbox;
let client: ReturnType<typeof createMediaClient>;

const media = {
  publicMedia: {
    'https://media.example/lesson.mp4': { fixture: 'mp4' as const },
    'https://media.example/moved.mp4': { redirect: 'https://media.example/lesson.mp4' },
    'https://rebind.example/lesson.mp4': { fixture: 'mp4' as const, resolvesTo: '127.0.0.1' },
    'https://media.example/photo.png': { fixture: 'png' as const },
    'https://www.youtube.com/watch?v=LongLongLon': { durationSeconds: 1800, title: 'A long lecture' },
  },
};

beforeAll(async () => {
  // Held: every test moves the clock itself, so a loaded machine cannot skip a stage between two reads.
  sandbox = await startSandbox({ speed: 10, config: { media }, clock: 'held' });
  client = createMediaClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

function videoForm(fields: Record<string, string>, file: { bytes?: Buffer; name?: string } | null = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file)
    form.append(
      'video_file',
      new Blob([file.bytes ?? readMediaFixture('mp4')], { type: 'video/mp4' }),
      file.name ?? 'street-food.mp4',
    );
  return form;
}

const upload = (
  fields: Record<string, string>,
  file?: { bytes?: Buffer; name?: string } | null,
  target = sandbox,
) =>
  createMediaClient(target).call('POST', `${VF}/jobs`, { key: target.apiKey, form: videoForm(fields, file) });
const fromUrl = (body: Record<string, unknown>, key?: string) =>
  client.call('POST', `${VF}/jobs/from-url`, { json: body, ...(key ? { key } : {}) });

async function withSandbox(config: SandboxConfig, run: (other: Sandbox) => Promise<void>) {
  const other = await startSandbox({ speed: 10, config, clock: 'held' });
  try {
    await run(other);
  } finally {
    await other.close();
  }
}

describe('POST /jobs (upload)', () => {
  it('starts a job with the limits, walks the stages, and finishes with transcript, word items and served clips', async () => {
    const started = await upload({ learning_direction: 'chinese_to_vietnamese' });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      success: true,
      job_id: expect.stringMatching(/^vf_/),
      status: 'queued',
      statusPath: `${VF}/jobs/${started.body.job_id}`,
      limits: {
        requests_per_minute: 120,
        concurrent_video_jobs: 3,
        daily_video_minutes: 60,
        today_video_minutes_used: expect.closeTo(0.03, 2),
        max_video_duration_seconds: 900,
        max_upload_bytes: 524_288_000,
      },
    });
    const queued = (await client.call('GET', started.body.statusPath)).body;
    expect(queued).toMatchObject({
      job_id: started.body.job_id,
      status: 'queued',
      ready: false,
      successful: null,
      progress: { percent: 0, stage: 'queued', message: expect.any(String) },
    });
    expect(queued.media).toEqual({ title: 'street-food', duration: expect.closeTo(2.05, 1) });
    const stages = new Set<string>();
    for (let step = 0; step < 12; step++) {
      sandbox.control.advance(100);
      const status = (await client.call('GET', started.body.statusPath)).body;
      stages.add(status.progress.stage);
      if (!status.ready)
        expect(status).toMatchObject({
          status: expect.stringMatching(/queued|processing/),
          successful: null,
        });
    }
    expect([...stages]).toEqual(
      expect.arrayContaining(['separating_vocals', 'asr', 'translating', 'rendering']),
    );

    client.finish();
    const done = (await client.call('GET', started.body.statusPath)).body;
    expect(done).toMatchObject({
      status: 'done',
      ready: true,
      successful: true,
      progress: { percent: 100, stage: 'done' },
    });
    expect(done.error).toBeUndefined();
    const result = done.result;
    expect(result).toMatchObject({
      learning_direction: 'chinese_to_vietnamese',
      source_language: 'zh',
      target_language: 'vi',
      media: { title: 'street-food', source_url: null, original_video_url: expect.stringMatching(/^http/) },
      transcript: { text: expect.any(String), language: 'zh' },
    });
    expect(result.transcript.segments[0]).toEqual({
      index: 0,
      start: expect.any(Number),
      end: expect.any(Number),
      text: expect.any(String),
    });
    const segment = result.segments[0];
    expect(segment).toMatchObject({
      index: 0,
      text: expect.any(String),
      translation: expect.any(String),
      translation_en: expect.any(String),
    });
    expect(segment.duration).toBeCloseTo(segment.end - segment.start, 3);
    expect(segment.word_items[0]).toEqual({
      word: expect.any(String),
      pronunciation: expect.any(String),
      meaning: expect.any(String),
      meaning_en: expect.any(String),
      start: expect.any(Number),
      end: expect.any(Number),
      probability: expect.any(Number),
    });
    expect(segment.video).toMatchObject({ content_type: 'video/mp4', has_word_cards: true });
    const clip = await client.call('GET', segment.video.rendered_segment_url, { key: undefined });
    expect(clip.status).toBe(200);
    expect(clip.headers.get('content-type')).toBe('video/mp4');
    expect(clip.bytes.equals(readMediaFixture('mp4'))).toBe(true);
    const original = await client.call('GET', result.media.original_video_url, { key: undefined });
    expect(original.bytes.equals(readMediaFixture('mp4'))).toBe(true);
    expect(sandbox.control.counters().flashcardJobs).toEqual({ user_1: 1 });
  });

  it('honours the include flags, skip_vocal_separation and the explicit language pair', async () => {
    const started = await upload({
      learning_direction: 'thai_to_chinese',
      source_language: 'th',
      target_language: 'zh',
      include_rendered_segments: 'false',
      include_original_segments: 'false',
      skip_vocal_separation: 'true',
      max_words_per_segment: '1',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    sandbox.control.advance(150);
    expect((await client.call('GET', started.body.statusPath)).body.progress.stage).not.toBe(
      'separating_vocals',
    );
    client.finish();
    const { result } = (await client.call('GET', started.body.statusPath)).body;
    expect(result.source_language).toBe('th');
    for (const segment of result.segments) {
      expect(segment.word_items).toHaveLength(1);
      expect(segment.video).toEqual({
        original_segment_url: null,
        rendered_segment_url: null,
        content_type: 'video/mp4',
        has_word_cards: false,
      });
    }
  });

  const invalid: [string, Record<string, string>, RegExp][] = [
    ['a missing direction', {}, /learning_direction is required/],
    ['an unknown direction', { learning_direction: 'english_to_thai' }, /learning_direction/],
    [
      'a pair that does not match',
      { learning_direction: 'thai_to_chinese', source_language: 'zh' },
      /source_language does not match/,
    ],
    [
      'a target that does not match',
      { learning_direction: 'korean_to_chinese', target_language: 'th' },
      /target_language does not match/,
    ],
    [
      'max_words_per_segment 0',
      { learning_direction: 'thai_to_chinese', max_words_per_segment: '0' },
      /1 to 80/,
    ],
    [
      'max_words_per_segment 81',
      { learning_direction: 'thai_to_chinese', max_words_per_segment: '81' },
      /1 to 80/,
    ],
    [
      'a boolean that is not one',
      { learning_direction: 'thai_to_chinese', include_rendered_segments: 'maybe' },
      /must be a boolean/,
    ],
    [
      'an idempotency key over 180 characters',
      { learning_direction: 'thai_to_chinese', idempotency_key: 'k'.repeat(181) },
      /180/,
    ],
    ['an unknown field', { learning_direction: 'thai_to_chinese', quality: 'high' }, /unknown field quality/],
  ];
  for (const [name, fields, message] of invalid) {
    it(`refuses ${name} (400)`, async () => {
      const result = await upload(fields);
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ error: expect.stringMatching(message), code: 'invalid_request' });
      expect(sandbox.control.counters().flashcardJobs ?? {}).toEqual({});
    });
  }

  it('refuses a missing file and a file that is not a video', async () => {
    expect((await upload({ learning_direction: 'thai_to_chinese' }, null)).body).toMatchObject({
      code: 'invalid_request',
      error: expect.stringMatching(/video_file/),
    });
    const notVideo = await upload(
      { learning_direction: 'thai_to_chinese' },
      { bytes: readMediaFixture('png'), name: 'photo.png' },
    );
    expect(notVideo.status).toBe(400);
    expect(notVideo.body.code).toBe('unsupported_format');
  });

  it('accepts exactly 180 characters of idempotency key and returns the active matching job instead of a duplicate', async () => {
    const key = 'k'.repeat(180);
    const first = await upload({ learning_direction: 'japanese_to_chinese', idempotency_key: key });
    const again = await upload({ learning_direction: 'japanese_to_chinese', idempotency_key: key });
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.body.job_id).toBe(first.body.job_id);
    expect(sandbox.control.counters().flashcardJobs).toEqual({ user_1: 1 });
    const other = await upload(
      { learning_direction: 'japanese_to_chinese', idempotency_key: key },
      { bytes: Buffer.concat([readMediaFixture('mp4'), Buffer.alloc(8)]) },
    );
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_conflict');
    client.finish();
    // Once the job is finished it is no longer active: the key starts a new job.
    const later = await upload({ learning_direction: 'japanese_to_chinese', idempotency_key: key });
    expect(later.status).toBe(202);
    expect(later.body.job_id).not.toBe(first.body.job_id);
  });

  it('creates one job when the answer of an idempotent start is lost and the start is retried', async () => {
    sandbox.control.setFaults([
      { match: { method: 'POST', path: '/jobs/from-url$' }, kind: 'reset-after', count: 1 },
    ]);
    const body = { url: WATCH, learning_direction: 'korean_to_chinese', idempotency_key: 'retry-1' };
    await expect(fromUrl(body)).rejects.toThrow();
    const retried = await fromUrl(body);
    expect(retried.status).toBe(200);
    expect(sandbox.control.counters().flashcardJobs).toEqual({ user_1: 1 });
  });

  it('ends failed with processing_failed, or cancelled (two l) with an error code', async () => {
    const failed = await upload({ learning_direction: 'thai_to_chinese' }, { name: 'sandbox-fail.mp4' });
    const cancelled = await upload({ learning_direction: 'thai_to_chinese' }, { name: 'sandbox-cancel.mp4' });
    client.finish();
    const failedStatus = (await client.call('GET', failed.body.statusPath)).body;
    expect(failedStatus).toMatchObject({
      status: 'failed',
      ready: true,
      successful: false,
      error: { code: 'processing_failed', message: expect.any(String) },
    });
    expect(failedStatus.result).toBeUndefined();
    const cancelledStatus = (await client.call('GET', cancelled.body.statusPath)).body;
    expect(cancelledStatus).toMatchObject({
      status: 'cancelled',
      ready: true,
      successful: false,
      error: { code: 'cancelled' },
    });
  });

  it('hides another user’s job (404) and needs x-api-key (401)', async () => {
    const started = await upload({ learning_direction: 'thai_to_chinese' });
    expect((await client.call('GET', started.body.statusPath, { key: sandbox.apiKey2 })).status).toBe(404);
    expect((await client.call('GET', started.body.statusPath, { key: undefined })).status).toBe(401);
  });
});

describe('POST /jobs/from-url', () => {
  it.each([
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube.com/shorts/dQw4w9WgXcQ',
    'https://youtu.be/dQw4w9WgXcQ',
    'https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=30',
  ])('accepts the YouTube link %s (source_type defaults to youtube)', async (url) => {
    const started = await fromUrl({ url, learning_direction: 'korean_to_chinese' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    client.finish();
    const { result } = (await client.call('GET', started.body.statusPath)).body;
    expect(result.media).toMatchObject({
      title: 'YouTube video dQw4w9WgXcQ',
      source_url: url,
      original_video_url: null,
    });
  });

  it('gives the same video the same transcript', async () => {
    const first = await fromUrl({
      url: 'https://youtu.be/dQw4w9WgXcQ',
      learning_direction: 'chinese_to_thai',
    });
    const second = await fromUrl({
      url: 'https://youtu.be/dQw4w9WgXcQ',
      learning_direction: 'chinese_to_thai',
    });
    client.finish();
    const a = (await client.call('GET', first.body.statusPath)).body.result;
    const b = (await client.call('GET', second.body.statusPath)).body.result;
    expect(a.transcript).toEqual(b.transcript);
    expect(a.segments.map((segment: { translation: string }) => segment.translation)).toEqual(
      b.segments.map((segment: { translation: string }) => segment.translation),
    );
  });

  it('accepts a public direct video URL and reads its duration', async () => {
    const started = await fromUrl({
      url: 'https://media.example/lesson.mp4',
      source_type: 'direct_video_url',
      learning_direction: 'thai_to_chinese',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const status = (await client.call('GET', started.body.statusPath)).body;
    expect(status.media).toEqual({ title: 'lesson', duration: expect.closeTo(2.05, 1) });
  });

  const refused: [string, Record<string, unknown>, number, string, RegExp][] = [
    ['a non-YouTube link as youtube', { url: 'https://vimeo.com/123' }, 400, 'invalid_url', /YouTube/],
    [
      'a YouTube link without a valid id',
      { url: 'https://www.youtube.com/watch?v=short' },
      400,
      'invalid_url',
      /YouTube/,
    ],
    [
      'a private direct URL',
      { url: 'http://10.1.1.1/v.mp4', source_type: 'direct_video_url' },
      400,
      'unsafe_url',
      /private network/,
    ],
    [
      'a loopback direct URL',
      { url: 'http://[::1]:8080/v.mp4', source_type: 'direct_video_url' },
      400,
      'unsafe_url',
      /private network/,
    ],
    [
      'a direct URL resolving to loopback',
      { url: 'https://rebind.example/lesson.mp4', source_type: 'direct_video_url' },
      400,
      'unsafe_url',
      /private network address/,
    ],
    [
      'a redirecting direct URL',
      { url: 'https://media.example/moved.mp4', source_type: 'direct_video_url' },
      400,
      'unsafe_url',
      /redirect/,
    ],
    [
      'a direct URL that is not a video',
      { url: 'https://media.example/photo.png', source_type: 'direct_video_url' },
      400,
      'unsupported_format',
      /not a video/,
    ],
    ['an unknown source_type', { url: WATCH, source_type: 'vimeo' }, 400, 'invalid_request', /source_type/],
    ['a missing url', {}, 400, 'invalid_request', /url is required/],
    [
      'a video longer than 900 s',
      { url: 'https://www.youtube.com/watch?v=LongLongLon' },
      413,
      'video_too_long',
      /900 s/,
    ],
  ];
  for (const [name, body, status, code, message] of refused) {
    it(`refuses ${name}`, async () => {
      const result = await fromUrl({ learning_direction: 'thai_to_chinese', ...body });
      expect(result.status).toBe(status);
      expect(result.body).toMatchObject({ code, error: expect.stringMatching(message) });
      expect(sandbox.control.counters().flashcardJobs ?? {}).toEqual({});
    });
  }
});

describe('per-key limits', () => {
  it('allows 3 concurrent jobs per key, then answers 429 concurrent_limit until one is ready', async () => {
    for (let index = 0; index < 3; index++) {
      expect((await fromUrl({ url: WATCH, learning_direction: 'korean_to_chinese' })).status).toBe(202);
    }
    const refused = await fromUrl({ url: WATCH, learning_direction: 'korean_to_chinese' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'concurrent_limit', error: expect.stringMatching(/3 of 3/) });
    expect(
      (await fromUrl({ url: WATCH, learning_direction: 'korean_to_chinese' }, sandbox.apiKey2)).status,
    ).toBe(202);
    client.finish();
    expect((await fromUrl({ url: WATCH, learning_direction: 'korean_to_chinese' })).status).toBe(202);
  });

  it('limits requests per minute per key (429 rate_limited with Retry-After), status polls included', async () => {
    await withSandbox({ media: { ...media, flashcards: { requestsPerMinute: 2 } } }, async (other) => {
      const otherClient = createMediaClient(other);
      const started = await otherClient.call('POST', `${VF}/jobs/from-url`, {
        json: { url: WATCH, learning_direction: 'thai_to_chinese' },
      });
      expect(started.body.limits.requests_per_minute).toBe(2);
      expect((await otherClient.call('GET', started.body.statusPath)).status).toBe(200);
      const limited = await otherClient.call('GET', started.body.statusPath);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      other.control.advance(60_000);
      expect((await otherClient.call('GET', started.body.statusPath)).status).toBe(200);
    });
  });

  it('limits daily video minutes per key and reports the minutes used', async () => {
    const url = 'https://www.youtube.com/watch?v=AAAAAAAAAAA';
    const config = {
      media: { publicMedia: { [url]: { durationSeconds: 150 } }, flashcards: { dailyVideoMinutes: 4 } },
    };
    await withSandbox(config, async (other) => {
      // The minutes are counted per UTC day of the sandbox clock: it is moved to 01:00 of the next day, so
      // that the minute advanced below never crosses midnight (a run at 23:59 UTC saw the count reset).
      const day = 24 * 60 * 60 * 1000;
      other.control.advance(day - (other.control.now() % day) + 60 * 60 * 1000);
      const otherClient = createMediaClient(other);
      const start = () =>
        otherClient.call('POST', `${VF}/jobs/from-url`, {
          json: { url, learning_direction: 'thai_to_chinese' },
        });
      const first = await start();
      expect(first.status).toBe(202);
      expect(first.body.limits).toMatchObject({ daily_video_minutes: 4, today_video_minutes_used: 2.5 });
      other.control.advance(60_000); // finished, so only the daily minutes stand in the way
      const refused = await start();
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        code: 'daily_minutes_exceeded',
        limits: { today_video_minutes_used: 2.5 },
      });
      expect(other.control.counters().flashcardJobs).toEqual({ user_1: 1 });
    });
  });

  it('refuses uploads above max_upload_bytes and videos above the duration limit (413)', async () => {
    await withSandbox(
      { media: { flashcards: { maxUploadBytes: 4096, maxVideoDurationSeconds: 1 } } },
      async (other) => {
        const big = await upload({ learning_direction: 'thai_to_chinese' }, {}, other);
        expect(big.status).toBe(413);
        expect(big.body.code).toBe('file_too_large');
      },
    );
    await withSandbox({ media: { flashcards: { maxVideoDurationSeconds: 1 } } }, async (other) => {
      const long = await upload({ learning_direction: 'thai_to_chinese' }, {}, other);
      expect(long.status).toBe(413);
      expect(long.body).toMatchObject({
        code: 'video_too_long',
        error: expect.stringMatching(/limit is 1 s/),
      });
      expect(other.control.counters().flashcardJobs ?? {}).toEqual({});
    });
  });
});
