/** `@polymodal/core/audio`: WAV parsing and writing, decoding (ffmpeg when installed), resampling, pacing. */
export { concatWav } from './audio/concat-wav.js';
export { createStreamingResampler } from './audio/create-streaming-resampler.js';
export { decodeAudioFile } from './audio/decode-audio-file.js';
export { decodeWavToPcm16 } from './audio/decode-wav-to-pcm16.js';
export { encodeWav, wavHeader } from './audio/encode-wav.js';
export { type AudioFile, openAudioFile } from './audio/open-audio-file.js';
export { paceAudio } from './audio/pace-audio.js';
export { parseWav, type WavInfo } from './audio/parse-wav.js';
export { readWavHeader } from './audio/read-wav-header.js';
