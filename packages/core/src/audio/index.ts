export * from './concat-wav.js';
export * from './decode-audio-file.js';
export * from './decode-wav-to-pcm16.js';
export * from './encode-wav.js';
export * from './pace-audio.js';
export * from './parse-wav.js';
export * from './resample-audio.js';
