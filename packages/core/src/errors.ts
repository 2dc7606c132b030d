/**
 * `@polymodal/core/errors`: every error class core throws (the root exports the same), with nothing of the
 * clients: code that only catches or builds errors (an MCP server at start) imports these without loading
 * the clients and their contracts.
 */
export * from './errors/index.js';
