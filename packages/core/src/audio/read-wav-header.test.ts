import { describe, expect, it } from 'vitest';
import { toneWav } from '../../test/support/make-wav.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { wavHeader } from './encode-wav.js';
import { type ReadAt, readWavHeader } from './read-wav-header.js';

/** Reads from a buffer, counting the bytes asked for, as a file descriptor would be read. */
function reader(bytes: Buffer, size = bytes.length) {
  const log = { bytes: 0 };
  const readAt: ReadAt = async (position, length) => {
    log.bytes += length;
    return bytes.subarray(position, Math.min(position + length, size));
  };
  return { readAt, log, size };
}

describe('readWavHeader', () => {
  it('finds the layout and the samples past unknown chunks, reading only chunk headers', async () => {
    const wav = toneWav({
      rate: 44_100,
      channels: 2,
      bits: 24,
      seconds: 0.5,
      hz: 440,
      extraChunks: { LIST: Buffer.alloc(5000), odd_: Buffer.from('abc') },
    });
    const { readAt, log } = reader(wav);
    const header = await readWavHeader(readAt, wav.length, '/rec/a.wav');
    expect(header).toMatchObject({
      sampleRate: 44_100,
      channels: 2,
      bitsPerSample: 24,
      format: 'pcm',
      frames: 22_050,
      dataBytes: 22_050 * 6,
      dataOffset: wav.length - 22_050 * 6,
    });
    expect(header.durationSeconds).toBeCloseTo(0.5, 6);
    expect(log.bytes).toBeLessThan(200);

    const extensible = toneWav({
      rate: 48_000,
      channels: 1,
      bits: 32,
      float: true,
      extensible: true,
      seconds: 0.25,
      hz: 1,
    });
    expect(await readWavHeader(reader(extensible).readAt, extensible.length)).toMatchObject({
      format: 'float',
      frames: 12_000,
    });
  });

  it('knows the length of a 1.5 GB recording from its 44-byte header', async () => {
    const dataBytes = 1_500_000_000;
    const head = wavHeader({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' }, dataBytes);
    const header = await readWavHeader(reader(head, 44 + dataBytes).readAt, 44 + dataBytes);
    expect(header.durationSeconds).toBe(46_875);
  });

  it('refuses a data chunk that promises more than the file holds, naming the file', async () => {
    const wav = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    const cut = wav.subarray(0, wav.length - 100);
    const attempt = readWavHeader(reader(cut).readAt, cut.length, '/rec/cut.wav');
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(readWavHeader(reader(cut).readAt, cut.length, '/rec/cut.wav')).rejects.toThrow(
      /Not a usable WAV file \(\/rec\/cut\.wav\): its data chunk declares 1600 bytes of samples but only 1500 follow/,
    );
  });

  it('takes the 0xFFFFFFFF size of streaming recorders as "up to the end of the file"', async () => {
    const wav = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    wav.writeUInt32LE(0xffffffff, 40);
    expect((await readWavHeader(reader(wav).readAt, wav.length)).frames).toBe(800);
  });

  it('refuses what is not a usable WAV, saying why', async () => {
    const text = Buffer.from('RIFF....WAVEjunk');
    await expect(readWavHeader(reader(text).readAt, text.length)).rejects.toThrow(/no data chunk/);
    const adpcm = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    adpcm.writeUInt16LE(2, 20);
    await expect(readWavHeader(reader(adpcm).readAt, adpcm.length)).rejects.toThrow(/unsupported encoding/);
    const mp3 = Buffer.from('ID3\u0004 an mp3');
    await expect(readWavHeader(reader(mp3).readAt, mp3.length)).rejects.toThrow(/no RIFF\/WAVE header/);
  });
});
