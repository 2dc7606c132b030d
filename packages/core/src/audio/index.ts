export * from './wav.js';
