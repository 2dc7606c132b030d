export * from './create-polymodal-server.js';
export * from './per-context.js';
