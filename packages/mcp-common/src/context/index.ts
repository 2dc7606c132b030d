export * from './create-server-context.js';
