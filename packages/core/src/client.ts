/**
 * `@polymodal/core/client`: `createPolymodal` (also exported by the root) on an entry of its own, for code
 * that loads the clients when they are first needed, with `await import('@polymodal/core/client')`: an MCP
 * server that a host starts and lists but may never call. A static import of the root, or a dynamic import of
 * a module the program also imports statically, brings every client and its contracts along at start.
 */
export { createPolymodal, type Polymodal, type PolymodalOptions } from './client/create-polymodal.js';
