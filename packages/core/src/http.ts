/** `@polymodal/core/http`: the one HTTP chokepoint the clients share, its retry policy and Retry-After parsing. */
export * from './http/index.js';
