export * from './create-polymodal-server.js';
