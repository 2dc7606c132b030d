export * from './contracts/index.js';
export * from './errors/index.js';
