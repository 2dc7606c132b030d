/** `@polymodal/core/contracts`: the platform's request and response contracts as zod schemas, and its constants. */
export * from './contracts/index.js';
