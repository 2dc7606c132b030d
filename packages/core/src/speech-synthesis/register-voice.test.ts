import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeWav } from '../audio/encode-wav.js';
import { CUSTOM_VOICE_SERVICE } from '../constants/service-table.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { createFileAccess } from '../files/create-file-access.js';
import type { HttpClient, RequestOptions } from '../http/http-client.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import { createJobLedger } from '../ledger/create-job-ledger.js';
import { registerVoice } from './register-voice.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'register-voice-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A platform that answers every registration, and remembers what was sent to it. */
function platform() {
  const sent: RequestOptions<unknown>[] = [];
  const http: HttpClient = {
    baseUrl: 'http://platform.invalid',
    close: async () => undefined,
    request: async <T>(options: RequestOptions<T>) => {
      sent.push(options as RequestOptions<unknown>);
      const data = options.schema.parse({
        success: true,
        clone_audio: 'custom_voices/voice-1.wav',
        voice: { id: 'voice-1', name: 'Ann', audioPath: 'custom_voices/voice-1.wav' },
      });
      return { status: 201, headers: {}, data };
    },
  };
  return { http, sent };
}

function deps(http: HttpClient) {
  const ledger = createJobLedger({ dir: path.join(dir, 'jobs') });
  return {
    http,
    engine: createJobEngine({ ledger }),
    files: createFileAccess({ allowedDirs: [dir] }),
    ledger,
  };
}

describe('registerVoice', () => {
  it('refuses, before anything is sent, a recording that is not a WAV or holds no readable samples', async () => {
    const { http, sent } = platform();
    const notWav = path.join(dir, 'voice.wav');
    await writeFile(notWav, 'ID3 an mp3 named .wav');
    // A RIFF/WAVE header whose data chunk claims more bytes than the file holds.
    const truncated = path.join(dir, 'truncated.wav');
    const whole = encodeWav({ samples: new Int16Array(8000), sampleRate: 8000 });
    await writeFile(truncated, whole.subarray(0, 100));
    await expect(registerVoice(deps(http), { consent: true, audioFile: notWav })).rejects.toThrow(
      /is not a WAV recording \(checked by content\)\. Nothing was sent\./,
    );
    await expect(registerVoice(deps(http), { consent: true, audioFile: truncated })).rejects.toThrow(
      /is not a readable PCM WAV recording .*Nothing was sent\./,
    );
    await expect(registerVoice(deps(http), { consent: false, audioFile: notWav })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(sent).toEqual([]);
  });

  it('registers a recording once: the same recording again answers from the ledger, with nothing sent', async () => {
    const { http, sent } = platform();
    const recording = path.join(dir, 'owner.wav');
    await writeFile(recording, encodeWav({ samples: new Int16Array(8000), sampleRate: 8000 }));
    const setup = deps(http);
    const first = await registerVoice(setup, { consent: true, audioFile: recording, name: 'Ann' });
    const again = await registerVoice(deps(http), { consent: true, audioFile: recording, name: 'Ann' });
    expect(first).toMatchObject({ clone_audio: 'custom_voices/voice-1.wav', resumed: false });
    expect(again).toMatchObject({ clone_audio: 'custom_voices/voice-1.wav', resumed: true });
    expect(sent).toHaveLength(1);
    const [entry] = await setup.ledger.list({ service: CUSTOM_VOICE_SERVICE });
    expect(entry).toMatchObject({ id: 'voice-1', lastStatus: 'REGISTERED', title: 'Ann' });
    expect(entry?.request).toMatchObject({ file: await realpath(recording) });
  });
});
