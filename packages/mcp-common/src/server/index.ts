export * from './compose-polymodal-servers.js';
export * from './create-polymodal-server.js';
export * from './per-context.js';
export { type PrecomputedToolList, readPrecomputedToolList } from './precomputed-tool-list.js';
export type { CallToolResult, Icon, ResourceLink, ToolAnnotations } from './sdk-types.js';
export { svgIcon, withoutVacuousKeywords } from './tool-list-json.js';
