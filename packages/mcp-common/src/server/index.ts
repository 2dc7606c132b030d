export * from './compose-polymodal-servers.js';
export * from './create-polymodal-server.js';
export * from './per-context.js';
export * from './register-tools-where.js';
