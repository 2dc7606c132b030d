export * from './compose-polymodal-servers.js';
export * from './create-polymodal-server.js';
export { svgIcon, withoutVacuousKeywords } from './decorate-tool-list.js';
export * from './per-context.js';
export { type PrecomputedToolList, readPrecomputedToolList } from './precomputed-tool-list.js';
export * from './register-tools-where.js';
