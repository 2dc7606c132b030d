export * from './tool-error.js';
