/**
 * decodeAudioFile as a process: WAV decoded in-process, other formats handed to ffmpeg (a stand-in
 * script here, so the test does not depend on what the machine has installed), and clear errors when
 * ffmpeg is missing or fails.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeAudioFile, ValidationError } from '../src/index.js';
import { frequencyOf, toneWav } from './helpers/make-wav.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'decode-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A stand-in ffmpeg: records its arguments, then prints PCM16LE samples 1, 2, 3 or fails. */
async function fakeFfmpeg(behaviour: 'ok' | 'fail'): Promise<string> {
  const script = path.join(dir, 'ffmpeg');
  const body =
    behaviour === 'ok'
      ? 'process.stdout.write(Buffer.from([1, 0, 2, 0, 3, 0]));'
      : "process.stderr.write('Invalid data found when processing input\\n'); process.exit(1);";
  await writeFile(
    script,
    `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'args.json'))}, JSON.stringify(process.argv.slice(2)));\n${body}\n`,
  );
  await chmod(script, 0o755);
  return script;
}

describe('decodeAudioFile', () => {
  it('decodes a WAV itself, at the requested rate', async () => {
    const file = path.join(dir, 'tone.wav');
    await writeFile(file, toneWav({ rate: 44_100, channels: 2, bits: 24, seconds: 0.5, hz: 500 }));
    const samples = await decodeAudioFile(file, { sampleRate: 16_000 });
    expect(samples.length).toBe(8000);
    expect(frequencyOf(samples, 16_000)).toBeCloseTo(500, -1);
  });

  it('hands other formats to ffmpeg as an argument array asking for PCM16LE mono at the rate', async () => {
    const file = path.join(dir, 'speech; rm -rf ~.mp3');
    await writeFile(file, Buffer.from('ID3fake mp3'));
    const samples = await decodeAudioFile(file, { sampleRate: 8000, ffmpegPath: await fakeFfmpeg('ok') });
    expect(Array.from(samples)).toEqual([1, 2, 3]);
    const args = JSON.parse(await readFile(path.join(dir, 'args.json'), 'utf8')) as string[];
    // The odd file name arrives as one argument: nothing went through a shell.
    expect(args).toContain(file);
    expect(args.join(' ')).toContain('-f s16le');
    expect(args.join(' ')).toContain('-ac 1 -ar 8000 pipe:1');
  });

  it('says how to install ffmpeg when it is missing', async () => {
    const file = path.join(dir, 'speech.m4a');
    await writeFile(file, Buffer.from('....ftypM4A '));
    const attempt = decodeAudioFile(file, { ffmpegPath: path.join(dir, 'no-such-ffmpeg') });
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(decodeAudioFile(file, { ffmpegPath: path.join(dir, 'no-such-ffmpeg') })).rejects.toThrow(
      /needs ffmpeg, which was not found\. Install ffmpeg \(Debian\/Ubuntu: apt install ffmpeg; macOS: brew install ffmpeg/,
    );
  });

  it("reports ffmpeg's own complaint when it cannot decode the file", async () => {
    const file = path.join(dir, 'broken.ogg');
    await writeFile(file, Buffer.from('OggS broken'));
    await expect(decodeAudioFile(file, { ffmpegPath: await fakeFfmpeg('fail') })).rejects.toThrow(
      /ffmpeg could not decode .*broken\.ogg: Invalid data found when processing input/,
    );
  });

  it('refuses a file that says it is a WAV but is not a usable one, without calling ffmpeg', async () => {
    const file = path.join(dir, 'adpcm.wav');
    const wav = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    wav.writeUInt16LE(2, 20);
    await writeFile(file, wav);
    await expect(decodeAudioFile(file, { ffmpegPath: path.join(dir, 'no-such-ffmpeg') })).rejects.toThrow(
      /unsupported encoding/,
    );
  });
});
