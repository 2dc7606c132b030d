export * from './build-summary.js';
export * from './build-transcript.js';
export * from './meeting-service.js';
