export * from './meeting.js';
