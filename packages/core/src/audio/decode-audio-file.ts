/**
 * An audio file to PCM16LE mono samples at a given rate, in one array: WAV decoded here, other formats
 * (MP3, M4A, OGG, ...) through ffmpeg when it is installed, with an error that says how to install it
 * when it is not. For short clips; a long recording is better streamed block by block through
 * openAudioFile's `decode`, which this function drains.
 */
import { type OpenAudioFileOptions, openAudioFile } from './open-audio-file.js';

export interface DecodeAudioFileOptions extends Omit<OpenAudioFileOptions, 'signal'> {
  /** Output rate in Hz (default 16000). */
  sampleRate?: number;
  signal?: AbortSignal;
}

export async function decodeAudioFile(
  file: string,
  options: DecodeAudioFileOptions = {},
): Promise<Int16Array> {
  const { sampleRate = 16_000, ...openOptions } = options;
  const audio = await openAudioFile(file, openOptions);
  try {
    const blocks: Int16Array[] = [];
    let length = 0;
    for await (const block of audio.decode({
      sampleRate,
      ...(options.signal ? { signal: options.signal } : {}),
    })) {
      blocks.push(block);
      length += block.length;
    }
    const samples = new Int16Array(length);
    let offset = 0;
    for (const block of blocks) {
      samples.set(block, offset);
      offset += block.length;
    }
    return samples;
  } finally {
    await audio.close();
  }
}
