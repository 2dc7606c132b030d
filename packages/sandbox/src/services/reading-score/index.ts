export * from './reading-score-service.js';
export * from './score-reading.js';
export * from './thai-tokens.js';
