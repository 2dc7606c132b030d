export * from './redact-secrets.js';
export * from './resolve-config.js';
