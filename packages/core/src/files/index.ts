export * from './create-file-access.js';
export * from './sanitize-file-name.js';
export * from './write-file-atomic.js';
