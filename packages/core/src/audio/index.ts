export * from './concat-wav.js';
export * from './create-streaming-resampler.js';
export * from './decode-audio-file.js';
export * from './decode-wav-stream.js';
export * from './decode-wav-to-pcm16.js';
export {
  type DecodeWithFfmpegOptions,
  decodeWithFfmpeg,
  FFMPEG_INSTALL_HINT,
  type FfmpegInput,
} from './decode-with-ffmpeg.js';
export * from './encode-wav.js';
export * from './open-audio-file.js';
export * from './pace-audio.js';
export { invalidWav, parseWav, type WavInfo } from './parse-wav.js';
export * from './probe-with-ffprobe.js';
export * from './read-wav-header.js';
export * from './resample-audio.js';
