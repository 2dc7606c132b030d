/**
 * `@polymodal/core/clients`: each service's client on its own (`createPolymodal()` builds all eight on one
 * HTTP client, file access and job engine), with the service's constants and local checks.
 */
export * from './flashcards/index.js';
export * from './llm/index.js';
export * from './meeting/index.js';
export * from './reading-score/index.js';
export * from './speech-synthesis/index.js';
export * from './thai-asr/index.js';
export * from './video/index.js';
