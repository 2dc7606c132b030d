export * from './tool-deadline.js';
