/**
 * Writes WAV files: PCM16 samples (`encodeWav`), and a header for any PCM/float layout (`wavHeader`, used
 * when joining files of another depth).
 */

export interface WavLayout {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  format: 'pcm' | 'float';
}

/** A canonical 44-byte RIFF/WAVE header for `dataBytes` bytes of samples. */
export function wavHeader(layout: WavLayout, dataBytes: number): Buffer {
  const blockAlign = layout.channels * (layout.bitsPerSample / 8);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(layout.format === 'float' ? 3 : 1, 20);
  header.writeUInt16LE(layout.channels, 22);
  header.writeUInt32LE(layout.sampleRate, 24);
  header.writeUInt32LE(layout.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(layout.bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** PCM16LE samples (interleaved when `channels` > 1) as a WAV file. */
export function encodeWav(options: { samples: Int16Array; sampleRate: number; channels?: number }): Buffer {
  const channels = options.channels ?? 1;
  const dataBytes = options.samples.length * 2;
  const header = wavHeader(
    { sampleRate: options.sampleRate, channels, bitsPerSample: 16, format: 'pcm' },
    dataBytes,
  );
  const data = Buffer.alloc(dataBytes);
  // Written sample by sample: little-endian whatever the host's byte order.
  for (let index = 0; index < options.samples.length; index++) {
    data.writeInt16LE(options.samples[index] ?? 0, index * 2);
  }
  return Buffer.concat([header, data]);
}
