export * from './api-error.js';
export * from './polymodal-error.js';
