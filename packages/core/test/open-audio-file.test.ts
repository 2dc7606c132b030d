/**
 * openAudioFile on a real file system: what is not a recording (FIFO, directory, device, socket, empty
 * file, text named .wav, another format without ffmpeg) is refused at once and says why; a WAV is
 * timed from its header; other formats are timed by ffprobe (a stand-in script) first; and a long WAV is
 * decoded block by block in bounded memory.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAudioFile } from '../src/audio.js';
import { ValidationError } from '../src/index.js';
import { toneWav, writeSparseWav } from './support/make-wav.js';

let dir: string;
const servers: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'open-audio-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function refusal(file: string, options: Parameters<typeof openAudioFile>[1] = {}): Promise<string> {
  const error = await openAudioFile(file, options).then(
    async (audio) => {
      await audio.close();
      return undefined;
    },
    (reason: unknown) => reason,
  );
  expect(ValidationError.isInstance(error), String(error)).toBe(true);
  return (error as Error).message;
}

describe('openAudioFile refuses what is not a recording, at once', () => {
  it('a FIFO with no writer (four in a row), a directory, /dev/zero and a socket', async () => {
    for (let index = 0; index < 4; index++) {
      const fifo = path.join(dir, `pipe-${index}.wav`);
      execFileSync('mkfifo', [fifo]);
      // Without O_NONBLOCK this open would wait forever for a writer, holding a thread of the pool.
      expect(await refusal(fifo)).toMatch(/pipe-\d\.wav is a named pipe, not a regular file/);
    }
    await mkdir(path.join(dir, 'folder.wav'));
    expect(await refusal(path.join(dir, 'folder.wav'))).toMatch(/folder\.wav is a directory/);
    expect(await refusal('/dev/zero')).toMatch(/\/dev\/zero is a device, not a regular file/);
    const socketPath = path.join(dir, 'sock.wav');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    // Opening a socket fails with ENXIO before any stat can say what it is.
    expect(await refusal(socketPath)).toMatch(/sock\.wav (is a socket|cannot be opened \(ENXIO\))/);
    // And the next file opens normally: nothing is left holding the thread pool.
    const good = path.join(dir, 'good.wav');
    await writeFile(good, toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 }));
    const audio = await openAudioFile(good);
    expect(audio.durationSeconds).toBeCloseTo(0.1, 6);
    await audio.close();
  });

  it('a missing file, an empty file and text saved as .wav, each saying what it is', async () => {
    expect(await refusal(path.join(dir, 'missing.wav'))).toMatch(/missing\.wav does not exist/);
    await writeFile(path.join(dir, 'empty.wav'), '');
    const empty = await refusal(path.join(dir, 'empty.wav'));
    expect(empty).toMatch(/empty\.wav is empty \(0 bytes\)/);
    expect(empty).not.toMatch(/ffmpeg/);
    await writeFile(path.join(dir, 'notes.wav'), 'Meeting notes: call Somchai on Monday.\n');
    const text = await refusal(path.join(dir, 'notes.wav'), { ffmpegPath: path.join(dir, 'no-ffmpeg') });
    expect(text).toMatch(
      /notes\.wav is named like a WAV file but is not one: it has no RIFF\/WAVE header and holds text/,
    );
    expect(text).not.toMatch(/ffmpeg/);
  });

  it('another format without ffmpeg, with how to install it', async () => {
    await writeFile(path.join(dir, 'speech.mp3'), Buffer.from('ID3\u0004\u0000 mp3 frames'));
    expect(await refusal(path.join(dir, 'speech.mp3'), { ffmpegPath: path.join(dir, 'no-ffmpeg') })).toMatch(
      /speech\.mp3 is not a WAV file, and decoding other formats needs ffmpeg, which was not found\. Install ffmpeg/,
    );
  });
});

describe('openAudioFile times a recording before decoding it', () => {
  async function stand(name: string, script: string): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, `#!${process.execPath}\n${script}\n`);
    await chmod(file, 0o755);
    return file;
  }

  it('a 1.5 GB WAV from its header, without reading its samples', async () => {
    const file = await writeSparseWav(
      path.join(dir, 'long.wav'),
      { sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' },
      1_500_000_000,
    );
    const before = process.memoryUsage().rss;
    const audio = await openAudioFile(file);
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 * 1024);
    expect(audio).toMatchObject({ format: 'wav', durationSeconds: 46_875, size: 1_500_000_044 });
    expect(audio.samplesAt(16_000)).toBe(750_000_000);
    await audio.close();
  });

  it('other formats through ffprobe, whose refusal is passed on; unknown when ffprobe is missing', async () => {
    const ffmpegPath = await stand('ffmpeg', 'process.exit(0);');
    await writeFile(path.join(dir, 'a.m4a'), Buffer.from('....ftypM4A '));
    await stand(
      'ffprobe',
      "process.stdout.write(JSON.stringify({ streams: [{ codec_type: 'audio' }], format: { duration: '754.25' } }));",
    );
    const timed = await openAudioFile(path.join(dir, 'a.m4a'), { ffmpegPath });
    expect(timed).toMatchObject({
      format: 'other',
      durationSeconds: 754.25,
      durationUnknownBecause: undefined,
    });
    await timed.close();

    await stand(
      'ffprobe',
      "process.stdout.write(JSON.stringify({ streams: [], format: { duration: '3.0' } }));",
    );
    expect(await refusal(path.join(dir, 'a.m4a'), { ffmpegPath })).toMatch(/a\.m4a holds no audio stream/);

    await stand(
      'ffprobe',
      "process.stderr.write('a.m4a: Invalid data found when processing input\\n'); process.exit(1);",
    );
    expect(await refusal(path.join(dir, 'a.m4a'), { ffmpegPath })).toMatch(
      /ffmpeg could not read .*a\.m4a: a\.m4a: Invalid data found when processing input/,
    );

    await rm(path.join(dir, 'ffprobe'));
    const untimed = await openAudioFile(path.join(dir, 'a.m4a'), { ffmpegPath });
    expect(untimed).toMatchObject({
      durationSeconds: undefined,
      durationUnknownBecause: 'ffprobe (installed with ffmpeg) was not found',
    });
    await untimed.close();
  });
});

describe('openAudioFile decodes block by block', () => {
  it('a 200 MB 48 kHz stereo float WAV to 16 kHz mono with memory flat (≤ 64 MiB over the start)', async () => {
    const dataBytes = 200_000_000;
    const file = await writeSparseWav(
      path.join(dir, 'long-float.wav'),
      { sampleRate: 48_000, channels: 2, bitsPerSample: 32, format: 'float' },
      dataBytes,
    );
    const audio = await openAudioFile(file);
    const frames = dataBytes / 8;
    expect(audio.durationSeconds).toBeCloseTo(frames / 48_000, 6);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    let samples = 0;
    let blocks = 0;
    for await (const block of audio.decode({ sampleRate: 16_000 })) {
      samples += block.length;
      blocks++;
      // Sampled at every block: the largest allocation between two samples is one block's worth.
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    await audio.close();
    expect(samples).toBe(audio.samplesAt(16_000));
    expect(samples).toBe(Math.floor(frames / 3));
    expect(blocks).toBeGreaterThan(100);
    // Reading it whole would take 200 MB for the bytes and 100 MB more for the floats.
    expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('stops reading when the file shrinks under it, naming the file', async () => {
    const file = await writeSparseWav(
      path.join(dir, 'shrinking.wav'),
      { sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' },
      2_000_000,
    );
    const audio = await openAudioFile(file);
    const decoded = audio.decode({ sampleRate: 16_000 });
    await decoded.next();
    await truncate(file, 1000);
    await expect(
      (async () => {
        for await (const _ of decoded);
      })(),
    ).rejects.toThrow(/shrinking\.wav became shorter while it was being read/);
    await audio.close();
  });
});
