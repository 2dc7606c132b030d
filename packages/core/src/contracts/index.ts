export * from './flashcards.js';
export * from './llm.js';
export * from './meeting.js';
export * from './reading-score.js';
export * from './speech-synthesis.js';
export * from './thai-asr.js';
export * from './video.js';
