export * from './stream-recognizer.js';
export * from './thai-asr-service.js';
export * from './thai-phrases.js';
