export * from './llm.js';
export * from './meeting.js';
export * from './reading-score.js';
export * from './thai-asr.js';
