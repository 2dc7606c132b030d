/**
 * decodeAudioFile as a process: WAV decoded in-process, other formats handed to ffmpeg (a stand-in
 * script here, so the test does not depend on what the machine has installed) reading the descriptor that
 * was opened and checked, and clear errors when ffmpeg is missing or fails.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeAudioFile } from '../src/audio.js';
import { ValidationError } from '../src/index.js';
import { frequencyOf, toneWav } from './support/make-wav.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'decode-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A stand-in ffmpeg: records its arguments and what it read from its input (the argument after `-i`),
 * then prints PCM16LE samples 1, 2, 3 or fails.
 */
async function fakeFfmpeg(behaviour: 'ok' | 'fail'): Promise<string> {
  const script = path.join(dir, 'ffmpeg');
  const body =
    behaviour === 'ok'
      ? 'process.stdout.write(Buffer.from([1, 0, 2, 0, 3, 0]));'
      : "process.stderr.write('Invalid data found when processing input\\n'); process.exit(1);";
  await writeFile(
    script,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const input = fs.readFileSync(args[args.indexOf('-i') + 1], 'latin1');
fs.writeFileSync(${JSON.stringify(path.join(dir, 'args.json'))}, JSON.stringify({ args, input }));
${body}
`,
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
    const { args, input } = JSON.parse(await readFile(path.join(dir, 'args.json'), 'utf8')) as {
      args: string[];
      input: string;
    };
    // On Linux ffmpeg reads the descriptor that was opened and checked; elsewhere the odd file name
    // arrives as one argument. Either way nothing went through a shell, and it read the file's bytes.
    expect(args[args.indexOf('-i') + 1]).toBe(process.platform === 'linux' ? '/dev/fd/3' : file);
    expect(input).toBe('ID3fake mp3');
    expect(args.join(' ')).toContain('-f s16le');
    expect(args.join(' ')).toContain('-ac 1 -ar 8000 pipe:1');
  });

  it('has ffmpeg decode the file that was checked, even when the path is swapped for another one', async () => {
    const file = path.join(dir, 'speech.mp3');
    await writeFile(file, Buffer.from('ID3 the checked file'));
    const ffmpegPath = await fakeFfmpeg('ok');
    // The path is swapped the moment ffprobe is asked (after the open), as an attacker racing the call would.
    await writeFile(
      path.join(dir, 'ffprobe'),
      `#!${process.execPath}
const fs = require('node:fs');
fs.renameSync(${JSON.stringify(file)}, ${JSON.stringify(`${file}.old`)});
fs.writeFileSync(${JSON.stringify(file)}, 'ID3 swapped in');
process.stdout.write(JSON.stringify({ streams: [{ codec_type: 'audio' }], format: { duration: '1.5' } }));
`,
    );
    await chmod(path.join(dir, 'ffprobe'), 0o755);
    await decodeAudioFile(file, { sampleRate: 8000, ffmpegPath });
    const { input } = JSON.parse(await readFile(path.join(dir, 'args.json'), 'utf8')) as { input: string };
    expect(input).toBe(process.platform === 'linux' ? 'ID3 the checked file' : 'ID3 swapped in');
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
