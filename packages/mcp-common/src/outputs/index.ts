export * from './output-link.js';
