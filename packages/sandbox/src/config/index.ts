export * from './load-sandbox-config.js';
export * from './resolve-users.js';
export * from './sandbox-config.js';
