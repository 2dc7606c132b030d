export * from './create-thai-asr-client.js';
export * from './decode-audio-file.js';
