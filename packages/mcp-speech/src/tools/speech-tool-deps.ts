/**
 * What every tool of the speech server receives. Every tool answers a failure with mcp-common's
 * `toolErrorFor`.
 */
import type { ToolDeps } from '@polymodal/mcp-common';
