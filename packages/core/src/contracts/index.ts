export * from './llm.js';
export * from './meeting.js';
