/**
 * `@polymodal/core/config`: the configuration from the environment (`resolveConfig`, its variables) and
 * `redactSecrets` (the root exports the same), with nothing of the clients.
 */
export * from './config/index.js';
