export * from './create-reading-score-client.js';
