export * from './create-polymodal.js';
