export * from './create-thai-asr-client.js';
