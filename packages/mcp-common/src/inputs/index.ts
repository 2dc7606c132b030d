export * from './resolve-tool-inputs.js';
