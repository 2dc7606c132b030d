export * from './annotations/index.js';
/**
 * @polymodal/mcp-common: the MCP glue every Polymodal server shares — context from the environment,
 * error results, the long-job contract, tool deadlines, roots, output links, subtitle writers, the server
 * factory, the stdio/HTTP runners and the tenants (authentication and isolation) of an HTTP server.
 */
export * from './budget/index.js';
export * from './context/index.js';
export * from './deadline/index.js';
export * from './errors/index.js';
export * from './inputs/index.js';
export * from './jobs/index.js';
export * from './logging/index.js';
export * from './metrics/index.js';
export * from './outputs/index.js';
export * from './roots/index.js';
export * from './runners/index.js';
export * from './server/index.js';
export * from './subtitles/index.js';
export * from './tenants/index.js';
export * from './tools/index.js';
