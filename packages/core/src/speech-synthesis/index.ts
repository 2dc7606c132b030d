export * from './concurrency-governor.js';
export * from './create-speech-client.js';
export * from './split-speech-text.js';
