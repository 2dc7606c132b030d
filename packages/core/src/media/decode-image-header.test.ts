import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wav } from '../../test/support/make-wav.js';
import { jpeg, png, riffWaveJunk } from '../../test/support/media-files.js';
import { createFileAccess } from '../files/create-file-access.js';
import { checkImageDataUrl } from './check-image-data-url.js';
import { decodeImageHeader } from './decode-image-header.js';
import { readMediaAsDataUrl } from './read-media-as-data-url.js';

function webpLossless(width: number, height: number): Buffer {
  const chunk = Buffer.alloc(8 + 6);
  chunk.write('VP8L', 0, 'latin1');
  chunk.writeUInt32LE(6, 4);
  chunk[8] = 0x2f;
  chunk.writeUInt32LE(((height - 1) << 14) | (width - 1), 9);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + chunk.length, 4);
  header.write('WEBP', 8, 'latin1');
  return Buffer.concat([header, chunk]);
}

describe('decodeImageHeader', () => {
  it('reads the real dimensions of whole PNG, JPEG and WebP images', () => {
    expect(decodeImageHeader(png(64, 36))).toEqual({ type: 'image/png', width: 64, height: 36 });
    expect(decodeImageHeader(jpeg(160, 90))).toEqual({ type: 'image/jpeg', width: 160, height: 90 });
    expect(decodeImageHeader(webpLossless(300, 200))).toEqual({
      type: 'image/webp',
      width: 300,
      height: 200,
    });
  });

  it('refuses a PNG cut short, with a damaged chunk, or without image data', () => {
    const whole = png(64, 36);
    expect(decodeImageHeader(whole.subarray(0, whole.length - 20))).toEqual({
      problem: expect.stringMatching(/^is cut short/),
    });
    // Everything up to, but not including, IEND: a copy stopped just before the end.
    expect(decodeImageHeader(whole.subarray(0, whole.length - 12))).toEqual({
      problem: 'is cut short: it ends before its IEND chunk',
    });
    const flipped = Buffer.from(whole);
    flipped[45] = (flipped[45] ?? 0) ^ 0xff;
    expect(decodeImageHeader(flipped)).toEqual({
      problem: expect.stringMatching(/checksum of its "IDAT" chunk does not match/),
    });
    expect(decodeImageHeader(whole.subarray(0, 33))).toEqual({
      problem: expect.stringMatching(/cut short/),
    });
  });

  it('refuses a JPEG cut short or without a frame header', () => {
    const whole = jpeg(160, 90);
    expect(decodeImageHeader(whole.subarray(0, whole.length - 2))).toEqual({
      problem: 'is cut short: it ends before its end-of-image marker',
    });
    expect(decodeImageHeader(whole.subarray(0, 30))).toEqual({ problem: expect.stringMatching(/cut short/) });
    const noFrame = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.from([0xff, 0xd9])]);
    expect(decodeImageHeader(noFrame)).toEqual({ problem: 'is damaged: it has no frame header (SOF)' });
  });

  it('refuses an image with no pixels or sides over the limit', () => {
    expect(decodeImageHeader(png(0, 10))).toEqual({ problem: expect.stringMatching(/size of 0×10 pixels/) });
    expect(decodeImageHeader(jpeg(20_000, 100))).toEqual({
      problem: expect.stringMatching(/20000×100 pixels; sides over 16384 px are refused/),
    });
  });
});

describe('local and inline images', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'polymodal-image-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('turns a whole image into a data URL with its dimensions, and refuses a truncated one', async () => {
    const files = createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') });
    const whole = png(32, 32);
    await writeFile(path.join(dir, 'whole.png'), whole);
    await writeFile(path.join(dir, 'cut.png'), whole.subarray(0, whole.length - 30));
    const read = await readMediaAsDataUrl(path.join(dir, 'whole.png'), {
      kind: 'image',
      field: 'image',
      files,
    });
    expect(read).toMatchObject({ contentType: 'image/png', width: 32, height: 32, size: whole.length });
    await expect(
      readMediaAsDataUrl(path.join(dir, 'cut.png'), { kind: 'image', field: 'image', files }),
    ).rejects.toThrow(/^image: .*cut\.png is cut short: .* Nothing was sent\.$/);
  });

  it('refuses a WAV of junk given as inline audio', async () => {
    await writeFile(path.join(dir, 'junk.wav'), riffWaveJunk());
    await writeFile(path.join(dir, 'tone.wav'), wav(1));
    await expect(
      readMediaAsDataUrl(path.join(dir, 'junk.wav'), { kind: 'audio', field: 'audio' }),
    ).rejects.toThrow(/junk\.wav is damaged: no valid RIFF chunk/);
    expect(
      (await readMediaAsDataUrl(path.join(dir, 'tone.wav'), { kind: 'audio', field: 'audio' })).contentType,
    ).toBe('audio/wav');
  });

  it('decodes an inline data URL the same way', () => {
    const whole = png(8, 8);
    expect(checkImageDataUrl(`data:image/png;base64,${whole.toString('base64')}`, 'image.url')).toMatchObject(
      {
        width: 8,
        height: 8,
      },
    );
    const cut = whole.subarray(0, whole.length - 12).toString('base64');
    expect(() => checkImageDataUrl(`data:image/png;base64,${cut}`, 'image.url')).toThrow(
      'image.url: the data URL holds an image that is cut short: it ends before its IEND chunk. Nothing was sent.',
    );
  });
});
