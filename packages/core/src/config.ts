/** `@polymodal/core/config`: configuration from the environment, the state directory, `redactSecrets`. */
export { defaultStateDir, expandHome, STATE_DIR_VARIABLE } from './config/default-state-dir.js';
export { redactSecrets } from './config/redact-secrets.js';
export { API_KEY_VARIABLE, type ResolvedConfig, resolveConfig } from './config/resolve-config.js';
