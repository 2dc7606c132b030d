#!/usr/bin/env node
/**
 * Bin of the media generation MCP server: stdio by default (Claude Desktop, Claude Code, Cursor, VS Code),
 * `--http` for Streamable HTTP. Configuration comes from POLYMODAL_* environment variables.
 */
import { runServerMain } from '@polymodal/mcp-common';
import { createServer, SERVER_NAME } from './server.js';

const HELP = `Environment:
  POLYMODAL_BASE_URL      platform address (required)
  POLYMODAL_API_KEY       API key (required; never logged)
  POLYMODAL_ALLOWED_DIRS  directories images, videos and voice recordings may be read from (path-list);
                          MCP roots add to them
  POLYMODAL_OUTPUT_DIR    where generated videos, speech and flashcards are saved
  POLYMODAL_STATE_DIR     job ledger (list_jobs, resuming, registered voices)
  POLYMODAL_TTS_CONCURRENT_SESSIONS  the key's concurrentSessions for speech, when known
  POLYMODAL_LOG_LEVEL     debug | info | warning | error (stderr)`;

void runServerMain({ name: SERVER_NAME, factory: () => createServer(), defaultPort: 3102, help: HELP });
