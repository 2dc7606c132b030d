import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wav } from '../../test/helpers/wav.js';
import { ValidationError } from '../errors/index.js';
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
    const avi = Buffer.alloc(64);
    avi.write('RIFF', 0, 'latin1');
    avi.writeUInt32LE(56, 4);
    avi.write('AVI LIST', 8, 'latin1');
    const info = await inspectRecording(await file('camera.avi', avi));
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

  it('recognises the signatures of every accepted container', async () => {
    const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom0000isomiso2', 'latin1')]);
    const moov = Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('moov', 'latin1')]);
    const cases: [string, Buffer][] = [
      ['a.mp3', Buffer.concat([Buffer.from('ID3'), Buffer.alloc(20)])],
      ['b.mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])],
      ['c.mp4', ftyp],
      ['d.m4a', ftyp],
      ['e.mov', moov],
      ['f.mkv', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81])],
    ];
    for (const [name, content] of cases) {
      const info = await inspectRecording(await file(name, content));
      expect(info.extension).toBe(path.extname(name));
    }
  });
});
