export * from './create-streaming-session.js';
