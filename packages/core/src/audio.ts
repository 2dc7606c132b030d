/** `@polymodal/core/audio`: WAV parsing and writing, decoding (ffmpeg when installed), resampling, pacing. */
export * from './audio/index.js';
