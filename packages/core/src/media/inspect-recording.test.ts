import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wav } from '../../test/support/make-wav.js';
import { avi, ftypJunk, mkv, mp3, mp4, riffWaveJunk } from '../../test/support/media-files.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { inspectRecording } from './inspect-recording.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'polymodal-inspect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: Buffer | string): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, content);
  return target;
}

async function rejection(promise: Promise<unknown>): Promise<ValidationError> {
  try {
    await promise;
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('inspectRecording', () => {
  it('accepts a valid WAV and reads its duration', async () => {
    const target = await file('standup.WAV', wav(2));
    const info = await inspectRecording(target);
    expect(info).toMatchObject({
      path: target,
      name: 'standup.WAV',
      extension: '.wav',
      container: 'wav',
      contentType: 'audio/wav',
      size: 44 + 32_000,
    });
    expect(info.durationSeconds).toBeCloseTo(2, 3);
    expect(info.mtimeMs).toBeGreaterThan(0);
  });

  it('passes a container whose duration cannot be read locally (AVI) with an unknown duration', async () => {
    const info = await inspectRecording(await file('camera.avi', avi()));
    expect(info.container).toBe('avi');
    expect(info.durationSeconds).toBeUndefined();
  });

  it('refuses a missing file', async () => {
    const error = await rejection(inspectRecording(path.join(dir, 'nope.wav')));
    expect(error.message).toContain('does not exist');
  });

  it('refuses a directory, a FIFO and /dev/zero', async () => {
    await mkdir(path.join(dir, 'folder.wav'));
    expect((await rejection(inspectRecording(path.join(dir, 'folder.wav')))).message).toContain('directory');
    execFileSync('mkfifo', [path.join(dir, 'pipe.wav')]);
    expect((await rejection(inspectRecording(path.join(dir, 'pipe.wav')))).message).toContain('named pipe');
    expect((await rejection(inspectRecording('/dev/zero'))).message).toContain('device');
  });

  it('refuses an unsupported extension and lists the accepted ones', async () => {
    const error = await rejection(inspectRecording(await file('notes.txt', 'hello')));
    expect(error.message).toContain('unsupported format (.txt)');
    expect(error.message).toContain('MP4, MOV, AVI, MKV, MP3, M4A, WAV');
  });

  it('refuses a file whose bytes do not match its extension', async () => {
    const renamed = await rejection(inspectRecording(await file('movie.mp4', wav(1))));
    expect(renamed.message).toContain('does not look like a MP4 file');
    const text = await rejection(inspectRecording(await file('fake.mp3', 'this is not audio')));
    expect(text.message).toContain('MP3');
    const mkv = await rejection(inspectRecording(await file('fake.mkv', Buffer.from('RIFF0000WAVE'))));
    expect(mkv.message).toContain('EBML');
  });

  it('refuses an empty file', async () => {
    const error = await rejection(inspectRecording(await file('empty.wav', '')));
    expect(error.message).toContain('is empty');
  });

  it('refuses a file over maxBytes', async () => {
    const error = await rejection(inspectRecording(await file('big.wav', wav(1)), { maxBytes: 1000 }));
    expect(error.message).toContain('over the upload limit');
    expect(error.message).toContain('Compress');
  });

  it('refuses a recording longer than the limit', async () => {
    const error = await rejection(
      inspectRecording(await file('long.wav', wav(3)), { maxDurationSeconds: 2 }),
    );
    expect(error.message).toContain('over the limit');
    expect(error.message).toContain('Split');
  });

  it('refuses a recording longer than two hours by default', async () => {
    // 2 h 1 min of silence as a sparse file: the header is real, the audio takes no disk space.
    const header = wav(0);
    const dataBytes = (2 * 3600 + 60) * 8000 * 2;
    header.writeUInt32LE(36 + dataBytes, 4);
    header.writeUInt32LE(dataBytes, 40);
    const target = await file('marathon.wav', header);
    await truncate(target, header.length + dataBytes);
    const error = await rejection(inspectRecording(target));
    expect(error.message).toContain('2 h 1 min long');
  });

  it('accepts whole files of every accepted container and reads their duration where it can', async () => {
    const cases: [string, Buffer, number | undefined][] = [
      ['a.mp3', Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\0', 'latin1'), mp3(40)]), 1.04],
      ['b.mp3', mp3(40), 1.04],
      ['c.mp4', mp4(3), 3],
      ['d.m4a', mp4(3), 3],
      ['e.mov', mp4(3), 3],
      ['f.mkv', mkv(4), 4],
      ['g.avi', avi(), undefined],
    ];
    for (const [name, content, seconds] of cases) {
      const info = await inspectRecording(await file(name, content));
      expect(info.extension).toBe(path.extname(name));
      if (seconds === undefined) expect(info.durationSeconds).toBeUndefined();
      else expect(info.durationSeconds).toBeCloseTo(seconds, 1);
    }
  });

  it('refuses a header followed by junk, naming the problem and the file, and says nothing was sent', async () => {
    const cases: [string, Buffer, RegExp][] = [
      ['junk.wav', riffWaveJunk(), /junk\.wav is damaged: no valid RIFF chunk/],
      ['junk.mp4', ftypJunk(), /junk\.mp4 is damaged or cut short: its MP4 boxes cannot be read/],
      ['header-only.mp4', ftypJunk(0), /no "moov" box with a duration/],
      [
        'junk.mp3',
        Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\0', 'latin1'), Buffer.from('garbage'.repeat(200))]),
        /no MPEG audio frame/,
      ],
      ['junk.mkv', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]), /Matroska\/WebM/],
      [
        'junk.avi',
        Buffer.concat([
          Buffer.from('RIFF', 'latin1'),
          Buffer.from([12, 0, 0, 0]),
          Buffer.from('AVI garbage!', 'latin1'),
        ]),
        /junk\.avi is (damaged|cut short)/,
      ],
    ];
    for (const [name, content, problem] of cases) {
      const error = await rejection(inspectRecording(await file(name, content)));
      expect(error.message).toMatch(problem);
      expect(error.message).toMatch(/Nothing was sent\.$/);
    }
  });

  it('refuses a WAV whose RIFF or data size disagrees with the file (cut short, or data appended)', async () => {
    const whole = wav(1);
    const cut = await rejection(inspectRecording(await file('cut.wav', whole.subarray(0, 4000))));
    expect(cut.message).toContain(
      'is cut short: its RIFF header announces 16044 bytes but the file has 4000',
    );
    const appended = await rejection(
      inspectRecording(await file('appended.wav', Buffer.concat([whole, Buffer.alloc(500)]))),
    );
    expect(appended.message).toContain('announces 16044 bytes but the file has 16544');
    const longData = Buffer.from(whole);
    longData.writeUInt32LE(whole.length, 40);
    const overrun = await rejection(inspectRecording(await file('overrun.wav', longData)));
    expect(overrun.message).toContain('its "data" chunk announces 16044 bytes but only 16000 follow');
    const noFormat = Buffer.from(whole);
    noFormat.write('junk', 12, 'latin1');
    expect((await rejection(inspectRecording(await file('no-format.wav', noFormat)))).message).toContain(
      'no "fmt " chunk',
    );
  });

  it('accepts a WAV written by a recorder that could not seek back (sizes left unknown)', async () => {
    const streamed = wav(2);
    streamed.writeUInt32LE(0xffffffff, 4);
    streamed.writeUInt32LE(0xffffffff, 40);
    const info = await inspectRecording(await file('piped.wav', streamed));
    expect(info.durationSeconds).toBeCloseTo(2, 3);
  });
});
