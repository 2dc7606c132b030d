#!/usr/bin/env node
/**
 * Bin of the speech and language MCP server: stdio by default (Claude Desktop, Claude Code, Cursor,
 * VS Code), `--http` for Streamable HTTP. Configuration comes from POLYMODAL_* environment variables.
 */
import { createRequire } from 'node:module';
import { readPrecomputedToolList, runServerMain } from '@polymodal/mcp-common/host';
import { createServer, SERVER_NAME } from './server.js';

const require = createRequire(import.meta.url);
/** Same file from src/ and dist/: both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };
/** The tools/list answer the build wrote beside the bundle (dist/tool-list.json); absent when run from src/. */
const toolList = readPrecomputedToolList(new URL('./tool-list.json', import.meta.url));

const HELP = `Environment:
  POLYMODAL_BASE_URL      platform address (required)
  POLYMODAL_API_KEY       API key (required; never logged)
  POLYMODAL_ALLOWED_DIRS  directories recordings may be read from (path-list); MCP roots add to them
  POLYMODAL_STATE_DIR     where queued reading scores are recorded (list_jobs)
  POLYMODAL_LOG_LEVEL     debug | info | warning | error (stderr)
Over HTTP:
  POLYMODAL_TENANTS_FILE  tenants and their token hashes (required off loopback; SIGHUP reloads it)
  POLYMODAL_ALLOWED_HOSTS host names clients may use (comma separated; also --allowed-host)
  POLYMODAL_HTTP_SESSIONS 1 for legacy stateful sessions (also --sessions); POLYMODAL_HTTP_MAX_SESSIONS
                          (default 1000), POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT (default 100) and
                          POLYMODAL_HTTP_SESSION_IDLE_SECONDS (default 1800) bound them`;

void runServerMain({
  name: SERVER_NAME,
  version,
  // Over HTTP the runner passes the caller's tenant context; over stdio none, and the server builds its own.
  factory: (request) => createServer({ platform: request?.platform, toolList }),
  defaultPort: 3103,
  help: HELP,
});
