import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createMediaClient, readWav } from './support/media-client.js';

const TTS = '/api/tts/v1';
let sandbox: Sandbox;
let client: ReturnType<typeof createMediaClient>;

beforeAll(async () => {
  sandbox = await startSandbox({
    speed: 10,
    // Held: a task moves only when a test advances the clock, so each state is seen however slow the machine.
    clock: 'held',
    config: {
      media: {
        publicMedia: {
          'https://voices.example/owner.wav': { fixture: 'wav' },
          'https://voices.example/moved.wav': { redirect: 'https://elsewhere.example/owner.wav' },
          'https://voices.example/rebind.wav': { fixture: 'wav', resolvesTo: '10.0.0.7' },
          'https://voices.example/picture.png': { fixture: 'png' },
        },
      },
    },
  });
  client = createMediaClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

const speak = (body: Record<string, unknown>, key?: string) =>
  client.call('POST', `${TTS}/audio/speech`, { json: body, ...(key ? { key } : {}) });

describe('POST /audio/speech', () => {
  it('starts a task (202, Retry-After, statusPath) that goes PENDING → STARTED → SUCCESS with a playable WAV', async () => {
    const started = await speak({ text: 'Hello there, this is a test of the speech service.' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      success: true,
      taskId: expect.stringMatching(/^tts_/),
      message: expect.any(String),
    });
    expect(started.body.statusPath).toBe(`${TTS}/audio/speech/${started.body.taskId}`);
    expect(Number(started.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const pending = await client.call('GET', started.body.statusPath);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({
      taskId: started.body.taskId,
      state: 'PENDING',
      ready: false,
      successful: null,
    });
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    sandbox.control.advance(60);
    const running = await client.call('GET', started.body.statusPath);
    expect(running.body).toMatchObject({ state: 'STARTED', ready: false, successful: null });
    expect(running.headers.get('retry-after')).toBeNull();

    client.finish();
    const done = await client.call('GET', started.body.statusPath);
    expect(done.body).toMatchObject({
      state: 'SUCCESS',
      ready: true,
      successful: true,
      result: {
        success: true,
        url: expect.stringMatching(/^\/api\/tts\/v1\/files\/.+\.wav$/),
        metadata: {
          text: 'Hello there, this is a test of the speech service.',
          language: 'en',
          model: 'model_b',
        },
      },
    });
    expect(done.body.error).toBeUndefined();

    // The WAV needs no key (a capability URL), is real PCM, and lasts what the metadata says.
    const audio = await client.call('GET', done.body.result.url, { key: undefined });
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(Number(audio.headers.get('content-length'))).toBe(audio.bytes.length);
    const wav = readWav(audio.bytes);
    expect(wav).toMatchObject({ sampleRate: 24_000, channels: 1, bits: 16 });
    expect(wav.peak).toBeGreaterThan(3000);
    expect(wav.seconds).toBeCloseTo(done.body.result.metadata.duration, 2);
  });

  it('makes longer text longer audio, and the same seed the same audio', async () => {
    const short = await speak({ text: 'Hi.', seed: 5 });
    const long = await speak({
      text: 'This sentence is a good deal longer than the first one, with several more words.',
      seed: 5,
    });
    const again = await speak({ text: 'Hi.', seed: 5 });
    client.finish();
    const results = await Promise.all(
      [short, long, again].map(
        async (started) => (await client.call('GET', started.body.statusPath)).body.result,
      ),
    );
    expect(results[0].metadata.seed).toBe(5);
    expect(results[1].metadata.duration).toBeGreaterThan(results[0].metadata.duration * 3);
    expect(results[1].metadata.duration).toBeLessThan(20);
    const first = await client.call('GET', results[0].url);
    const third = await client.call('GET', results[2].url);
    expect(first.bytes.equals(third.bytes)).toBe(true);
  });

  it('reports random seeds in the metadata when none (or a negative one) is sent', async () => {
    const started = await speak({ text: 'Random voice.', seed: -1 });
    client.finish();
    const { body } = await client.call('GET', started.body.statusPath);
    expect(body.result.metadata.seed).toBeGreaterThanOrEqual(0);
    expect(body.result.metadata.seed).toBeLessThanOrEqual(2_147_483_647);
  });

  it('accepts exactly 200 characters (code points) and refuses 201', async () => {
    expect((await speak({ text: 'a'.repeat(200) })).status).toBe(202);
    expect((await speak({ text: '๑'.repeat(200), language: 'th' })).status).toBe(202);
    const refused = await speak({ text: 'a'.repeat(201) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/201 characters.*200/);
  });

  it('routes the legacy model to model_d and picks model_d by default for th, ms, lo', async () => {
    const legacy = await speak({ text: 'Legacy voice.', model: 'legacy_model' });
    const thai = await speak({ text: 'สวัสดีครับ', language: 'th' });
    const lao = await speak({ text: 'ສະບາຍດີ', language: 'lo' });
    client.finish(); // three unfinished jobs is the key's limit
    const vietnamese = await speak({ text: 'Xin chào', language: 'vi' });
    client.finish();
    const metadata = async (started: { body: { statusPath: string } }) =>
      (await client.call('GET', started.body.statusPath)).body.result.metadata;
    expect(await metadata(legacy)).toMatchObject({ model: 'model_d', requested_model: 'legacy_model' });
    expect((await metadata(thai)).model).toBe('model_d');
    expect((await metadata(lao)).model).toBe('model_d');
    expect((await metadata(vietnamese)).model).toBe('model_a');
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['missing text', {}, /text is required/],
    ['blank text', { text: '   ' }, /text is required/],
    ['text not a string', { text: 42 }, /text is required/],
    ['unknown language', { text: 'x', language: 'fr' }, /language must be one of/],
    ['unknown model', { text: 'x', model: 'model_z' }, /model must be one of/],
    ['Thai with model_b', { text: 'x', language: 'th', model: 'model_b' }, /th requires model_d/],
    ['Malay with model_a', { text: 'x', language: 'ms', model: 'model_a' }, /ms requires model_d/],
    ['Lao with model_c', { text: 'x', language: 'lo', model: 'model_c' }, /lo requires model_d/],
    ['seed above the range', { text: 'x', seed: 2_147_483_648 }, /seed must be at most 2147483647/],
    ['fractional seed', { text: 'x', seed: 1.5 }, /seed must be an integer/],
    [
      'expression without model_a',
      { text: 'x', language: 'vi', model: 'model_b', model_a_expression: 'natural' },
      /only accepted with model=model_a and language=vi/,
    ],
    [
      'expression with model_a but English',
      { text: 'x', model: 'model_a', model_a_expression: 'natural' },
      /language=vi/,
    ],
    [
      'unknown expression',
      { text: 'x', language: 'vi', model: 'model_a', model_a_expression: 'angry' },
      /natural, storytelling/,
    ],
    [
      'legacy_sample with model_b',
      { text: 'x', model: 'model_b', legacy_sample: 'samples/a.wav' },
      /use|clone_audio/,
    ],
    [
      'clone_audio with model_a',
      { text: 'x', model: 'model_a', clone_audio: 'custom_voices/v.wav' },
      /model_a takes legacy_sample/,
    ],
    [
      'instruct with model_d clone',
      { text: 'x', model: 'model_d', clone_audio: '/uploads/ref.wav', instruct: 'calm' },
      /instruct must be omitted/,
    ],
    [
      'instruct with model_c',
      { text: 'x', model: 'model_c', instruct: 'calm' },
      /instruct is only for model_b and model_d/,
    ],
    [
      'speaker with model_d',
      { text: 'x', model: 'model_d', speaker: 'aria' },
      /speaker is only for model_b and model_c/,
    ],
    ['unknown speaker', { text: 'x', model: 'model_b', speaker: 'zed' }, /built-in speakers: aria/],
    [
      'speaker with clone audio',
      { text: 'x', model: 'model_b', speaker: 'aria', clone_audio: '/uploads/r.wav' },
      /only when no clone_audio/,
    ],
    [
      'clone_text without clone audio',
      { text: 'x', model: 'model_d', clone_text: 'hello' },
      /only with clone_audio/,
    ],
    [
      'public clone audio without consent',
      { text: 'x', model: 'model_d', clone_audio: 'https://voices.example/owner.wav' },
      /consent is required/,
    ],
    [
      'public clone audio with consent=false',
      { text: 'x', model: 'model_d', clone_audio: 'https://voices.example/owner.wav', consent: 'false' },
      /consent is required/,
    ],
    [
      'plain http clone audio',
      { text: 'x', model: 'model_d', clone_audio: 'http://voices.example/owner.wav', consent: true },
      /https/,
    ],
    [
      'private clone audio host',
      { text: 'x', model: 'model_d', clone_audio: 'https://192.168.1.20/a.wav', consent: true },
      /private network/,
    ],
    [
      'clone audio host resolving to a private address',
      { text: 'x', model: 'model_d', clone_audio: 'https://voices.example/rebind.wav', consent: true },
      /private network address/,
    ],
    [
      'redirected clone audio',
      { text: 'x', model: 'model_d', clone_audio: 'https://voices.example/moved.wav', consent: true },
      /redirect/,
    ],
    [
      'unknown custom voice',
      { text: 'x', model: 'model_d', clone_audio: 'custom_voices/voice_nope.wav' },
      /unknown custom voice/,
    ],
    ['path traversal', { text: 'x', model: 'model_d', clone_audio: 'voices/../../etc/passwd' }, /\.\./],
    [
      'differing legacy alias',
      { text: 'x', model: 'model_d', clone_audio: '/uploads/a.wav', legacy_clone_audio: '/uploads/b.wav' },
      /legacy alias/,
    ],
    ['unknown field', { text: 'x', volume: 3 }, /unknown field volume/],
  ];
  for (const [name, body, message] of invalid) {
    it(`answers 400 for ${name}, and creates nothing`, async () => {
      const result = await speak(body);
      expect(result.status).toBe(400);
      expect(result.body.error).toMatch(message);
      expect(sandbox.control.counters().ttsTasks ?? {}).toEqual({});
    });
  }

  it('accepts every model-specific field where it belongs', async () => {
    const accepted = [
      {
        text: 'Xin chào các bạn',
        language: 'vi',
        model: 'model_a',
        model_a_expression: 'storytelling',
        legacy_sample: 'samples/old.wav',
      },
      { text: 'Hello', model: 'model_b', speaker: 'ben', instruct: 'cheerful' },
      { text: 'Hello', model: 'model_c', speaker: 'kenji' },
      { text: 'Hello', model: 'model_d', instruct: 'slow and warm' },
      {
        text: 'Hello',
        model: 'model_d',
        legacy_clone_audio: 'legacy_voices/alice.wav',
        legacy_clone_text: 'Hi, I am Alice.',
      },
      { text: 'Hello', model: 'model_c', clone_audio: 'https://voices.example/owner.wav', consent: 'true' },
    ];
    for (const body of accepted) {
      const result = await speak(body, sandbox.apiKey);
      expect(result.status, JSON.stringify(result.body)).toBe(202);
      sandbox.control.advance(60 * 60 * 1000);
    }
  });

  it('stores the storytelling expression and the clone reference in the metadata', async () => {
    const started = await speak({
      text: 'Xin chào',
      language: 'vi',
      model: 'model_a',
      model_a_expression: 'storytelling',
    });
    client.finish();
    const { body } = await client.call('GET', started.body.statusPath);
    expect(body.result.metadata).toMatchObject({ model: 'model_a', model_a_expression: 'storytelling' });
  });

  it('fails a task whose text carries the failure marker: FAILURE, ready, not successful, error', async () => {
    const started = await speak({ text: 'Please [sandbox:fail] now' });
    client.finish();
    const { body } = await client.call('GET', started.body.statusPath);
    expect(body).toMatchObject({
      state: 'FAILURE',
      ready: true,
      successful: false,
      error: expect.any(String),
    });
    expect(body.result).toBeUndefined();
  });

  it('hides another user’s task (404) and needs x-api-key (401)', async () => {
    const started = await speak({ text: 'Private.' });
    expect((await client.call('GET', started.body.statusPath, { key: sandbox.apiKey2 })).status).toBe(404);
    expect((await client.call('GET', started.body.statusPath, { key: undefined })).status).toBe(401);
    const bearer = await client.call('POST', `${TTS}/audio/speech`, {
      key: undefined,
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
      json: { text: 'x' },
    });
    expect(bearer.status).toBe(401);
    expect(JSON.stringify(bearer.body)).not.toContain(sandbox.apiKey);
  });
});

describe('concurrency limit per key', () => {
  it('answers 429 with activeJobs, concurrentLimit, retryAfterSeconds, Retry-After and no-store, and admits again once a job is ready', async () => {
    const admitted = [];
    for (let index = 0; index < 3; index++) admitted.push(await speak({ text: `Sentence number ${index}.` }));
    expect(admitted.map((result) => result.status)).toEqual([202, 202, 202]);

    const refused = await speak({ text: 'One too many.' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: expect.stringMatching(/too many active/),
      activeJobs: 3,
      concurrentLimit: 3,
      retryAfterSeconds: expect.any(Number),
    });
    expect(refused.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfterSeconds));
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(sandbox.control.counters().ttsTasks).toEqual({ user_1: 3 });

    // Another key has its own limit.
    expect((await speak({ text: 'Other key.' }, sandbox.apiKey2)).status).toBe(202);

    sandbox.control.advance(refused.body.retryAfterSeconds * 1000);
    const statuses = await Promise.all(
      admitted.map((started) => client.call('GET', started.body.statusPath)),
    );
    expect(statuses.some((status) => status.body.ready)).toBe(true);
    expect((await speak({ text: 'Now there is room.' })).status).toBe(202);
    expect(sandbox.control.counters().ttsTasks).toEqual({ user_1: 4, user_2: 1 });
    // The high-water mark of unfinished tasks on the key, as the limit counts them: the refused POST added
    // none, and the fourth task came after one had finished.
    expect(sandbox.control.counters().ttsPeakUnfinished).toEqual({ user_1: 3, user_2: 1 });
  });

  it('counts a task created by a POST whose answer was lost (reset-after) exactly once', async () => {
    sandbox.control.setFaults([
      { match: { method: 'POST', path: '/audio/speech$' }, kind: 'reset-after', count: 1 },
    ]);
    await expect(speak({ text: 'Lost answer.' })).rejects.toThrow();
    expect(sandbox.control.counters().ttsTasks).toEqual({ user_1: 1 });
    expect(sandbox.control.counters().faults['reset-after']).toBe(1);
  });
});

describe('status polling limit', () => {
  it('answers 429 on GET when polled faster than configured, keeping the task', async () => {
    const limited = await startSandbox({
      speed: 10,
      config: { media: { speechSynthesis: { statusMinIntervalMs: 5000, concurrentSessions: 2 } } },
    });
    try {
      const limitedClient = createMediaClient(limited);
      const started = await limitedClient.call('POST', `${TTS}/audio/speech`, {
        key: limited.apiKey,
        json: { text: 'Poll me.' },
      });
      const first = await limitedClient.call('GET', started.body.statusPath, { key: limited.apiKey });
      expect(first.status).toBe(200);
      const second = await limitedClient.call('GET', started.body.statusPath, { key: limited.apiKey });
      expect(second.status).toBe(429);
      expect(second.body).toMatchObject({ activeJobs: 1, concurrentLimit: 2, retryAfterSeconds: 5 });
      expect(second.headers.get('retry-after')).toBe('5');
      limited.control.advance(5000);
      const third = await limitedClient.call('GET', started.body.statusPath, { key: limited.apiKey });
      expect(third.body).toMatchObject({ taskId: started.body.taskId, state: 'SUCCESS' });
    } finally {
      await limited.close();
    }
  });
});

describe('POST /custom-voices', () => {
  const wavForm = (fields: Record<string, string>, wav?: Buffer) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (wav) form.append('audio_file', new Blob([wav], { type: 'audio/wav' }), 'me.wav');
    return form;
  };

  async function referenceWav(): Promise<Buffer> {
    const started = await speak({
      text: 'This is my reference voice.',
      model: 'model_b',
      speaker: 'ben',
      seed: 1,
    });
    client.finish();
    const { body } = await client.call('GET', started.body.statusPath);
    return (await client.call('GET', body.result.url)).bytes;
  }

  it('registers an uploaded WAV with consent and returns a reusable custom_voices path', async () => {
    const wav = await referenceWav();
    const registered = await client.call('POST', `${TTS}/custom-voices`, {
      form: wavForm(
        {
          consent: 'true',
          name: 'Ben clone',
          model: 'model_d',
          language: 'en',
          transcript: 'This is my reference voice.',
        },
        wav,
      ),
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      success: true,
      voice: {
        id: expect.any(String),
        name: 'Ben clone',
        model: 'model_d',
        language: 'en',
        transcript: 'This is my reference voice.',
      },
      clone_text: 'This is my reference voice.',
    });
    const path = registered.body.voice.audioPath;
    expect(path).toMatch(/^custom_voices\//);
    expect(registered.body.clone_audio).toBe(path);
    expect(registered.body.ttsRequest).toEqual({
      clone_audio: path,
      clone_text: 'This is my reference voice.',
    });
    expect(sandbox.control.counters().customVoices).toEqual({ user_1: 1 });

    // Reused as is for several sentences; instruct stays forbidden in model_d clone mode.
    for (const text of ['First sentence.', 'Second sentence.']) {
      const started = await speak({ text, model: 'model_d', ...registered.body.ttsRequest });
      expect(started.status).toBe(202);
      client.finish();
      const { body } = await client.call('GET', started.body.statusPath);
      expect(body.result.metadata).toMatchObject({
        clone_audio: path,
        clone_text: 'This is my reference voice.',
        voice: `custom:${registered.body.voice.id}`,
      });
    }
    expect((await speak({ text: 'x', model: 'model_d', clone_audio: path, instruct: 'happy' })).status).toBe(
      400,
    );
    // Another account cannot use it.
    expect((await speak({ text: 'x', model: 'model_d', clone_audio: path }, sandbox.apiKey2)).status).toBe(
      400,
    );
  });

  it('registers a public HTTPS reference with consent', async () => {
    const registered = await client.call('POST', `${TTS}/custom-voices`, {
      form: wavForm({
        consent: 'true',
        audio_url: 'https://voices.example/owner.wav',
        model: 'model_c',
        language: 'zh',
      }),
    });
    expect(registered.status).toBe(201);
    expect(registered.body.voice).toMatchObject({ model: 'model_c', language: 'zh', name: 'Custom voice' });
  });

  const refusals: [string, Record<string, string>, boolean, number, RegExp][] = [
    ['missing consent', { name: 'x' }, true, 400, /consent is required/],
    ['consent false', { consent: 'false' }, true, 400, /consent is required/],
    ['no audio', { consent: 'true' }, false, 400, /audio_file .* or audio_url/],
    [
      'both audio forms',
      { consent: 'true', audio_url: 'https://voices.example/owner.wav' },
      true,
      400,
      /not both/,
    ],
    [
      'http audio URL',
      { consent: 'true', audio_url: 'http://voices.example/owner.wav' },
      false,
      400,
      /https/,
    ],
    [
      'private audio URL',
      { consent: 'true', audio_url: 'https://127.0.0.1/a.wav' },
      false,
      400,
      /private network/,
    ],
    [
      'redirected audio URL',
      { consent: 'true', audio_url: 'https://voices.example/moved.wav' },
      false,
      400,
      /redirect/,
    ],
    [
      'not a WAV',
      { consent: 'true', audio_url: 'https://voices.example/picture.png' },
      false,
      400,
      /must be a WAV/,
    ],
    ['model_a voice', { consent: 'true', model: 'model_a' }, true, 400, /model must be one of model_b/],
    ['unknown language', { consent: 'true', language: 'xx' }, true, 400, /language must be one of/],
  ];
  for (const [name, fields, withFile, status, message] of refusals) {
    it(`refuses ${name}`, async () => {
      const wav = withFile ? await referenceWav() : undefined;
      const result = await client.call('POST', `${TTS}/custom-voices`, { form: wavForm(fields, wav) });
      expect(result.status).toBe(status);
      expect(result.body.error).toMatch(message);
      expect(sandbox.control.counters().customVoices ?? {}).toEqual({});
    });
  }

  it('refuses a JSON body', async () => {
    const result = await client.call('POST', `${TTS}/custom-voices`, { json: { consent: true } });
    expect(result.status).toBe(400);
  });
});

describe('clone_text when reference recognition is disabled', () => {
  it('requires clone_text for model_d clone requests (or a registered transcript)', async () => {
    const strict = await startSandbox({
      speed: 10,
      config: { media: { speechSynthesis: { referenceRecognition: false } } },
    });
    try {
      const strictClient = createMediaClient(strict);
      const base = { text: 'Hello', model: 'model_d', clone_audio: '/uploads/ref.wav' };
      const refused = await strictClient.call('POST', `${TTS}/audio/speech`, {
        key: strict.apiKey,
        json: base,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/clone_text is required/);
      const accepted = await strictClient.call('POST', `${TTS}/audio/speech`, {
        key: strict.apiKey,
        json: { ...base, clone_text: 'Hi.' },
      });
      expect(accepted.status).toBe(202);
      // model_b clone requests do not need it.
      const modelB = await strictClient.call('POST', `${TTS}/audio/speech`, {
        key: strict.apiKey,
        json: { ...base, model: 'model_b' },
      });
      expect(modelB.status).toBe(202);
    } finally {
      await strict.close();
    }
  });
});
