export * from './download-media.js';
