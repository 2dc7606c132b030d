#!/usr/bin/env node
/**
 * Bin of the meeting MCP server: stdio by default (Claude Desktop, Claude Code, Cursor, VS Code),
 * `--http` for Streamable HTTP. Configuration comes from POLYMODAL_* environment variables.
 */
import { runServerMain } from '@polymodal/mcp-common';
import { createServer, SERVER_NAME } from './server.js';

const HELP = `Environment:
  POLYMODAL_BASE_URL      platform address (required)
  POLYMODAL_API_KEY       API key (required; never logged)
  POLYMODAL_ALLOWED_DIRS  directories recordings may be read from (path-list); MCP roots add to them
  POLYMODAL_OUTPUT_DIR    where export_meeting writes files
  POLYMODAL_STATE_DIR     where the job ledger lives (resume without paying twice)
  POLYMODAL_LOG_LEVEL     debug | info | warning | error (stderr)`;

void runServerMain({ name: SERVER_NAME, factory: () => createServer(), defaultPort: 3101, help: HELP });
