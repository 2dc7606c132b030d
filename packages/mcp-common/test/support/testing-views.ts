/** `@polymodal/mcp-common/testing/views`: MCP Apps views mounted in Chromium beside a server. */
export { CHROMIUM_PATH, type MountOptions, startViewHost, type ViewHost, viewCsp } from './view-host.js';
export {
  connectBin,
  listedTool,
  MAX_VIEW_BYTES,
  RENDERS_VIEWS,
  readView,
  saveScreenshot,
  useViewSession,
  type ViewResource,
  type ViewSession,
} from './view-session.js';
