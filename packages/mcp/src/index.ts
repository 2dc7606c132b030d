#!/usr/bin/env node
/**
 * Bin of the combined Polymodal MCP server: every tool in one entry, stdio by default, `--http` for
 * Streamable HTTP. `--toolsets` and `--read-only` choose what the model sees; they take precedence over
 * POLYMODAL_TOOLSETS and POLYMODAL_READ_ONLY.
 */
import { createRequire } from 'node:module';
import { readPrecomputedToolList, readReadOnly, runServerMain } from '@polymodal/mcp-common/host';
import { readCombinedArgs } from './read-combined-args.js';
import { createServer, parseToolsets, SERVER_NAME, TOOLSETS_VARIABLE } from './server.js';

const require = createRequire(import.meta.url);
/** Same file from src/ and dist/: both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };
/** The tools/list answer the build wrote beside the bundle (dist/tool-list.json); absent when run from src/. */
const toolList = readPrecomputedToolList(new URL('./tool-list.json', import.meta.url));

const HELP = `Choosing tools:
  --toolsets meeting,media,speech   toolsets the model sees (default all; also POLYMODAL_TOOLSETS)
  --read-only                       only tools that neither spend credits nor change anything
                                    (also POLYMODAL_READ_ONLY=1)
Environment:
  POLYMODAL_BASE_URL      platform address (required)
  POLYMODAL_API_KEY       API key (required; never logged)
  POLYMODAL_ALLOWED_DIRS  directories recordings, images and videos may be read from (path-list);
                          MCP roots add to them
  POLYMODAL_OUTPUT_DIR    where exported meetings and generated media are saved
  POLYMODAL_STATE_DIR     job ledger (list_jobs, resuming without paying twice, registered voices)
  POLYMODAL_TTS_CONCURRENT_SESSIONS  the key's concurrentSessions for speech, when known
  POLYMODAL_LOG_LEVEL     debug | info | warning | error (stderr)
Over HTTP:
  POLYMODAL_TENANTS_FILE  tenants and their token hashes (required off loopback; SIGHUP reloads it)
  POLYMODAL_ALLOWED_HOSTS host names clients may use (comma separated; also --allowed-host)
  POLYMODAL_HTTP_SESSIONS 1 for legacy stateful sessions (also --sessions); POLYMODAL_HTTP_MAX_SESSIONS
                          (default 1000), POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT (default 100) and
                          POLYMODAL_HTTP_SESSION_IDLE_SECONDS (default 1800) bound them`;

function main(): void {
  let toolsets: ReturnType<typeof parseToolsets>;
  let readOnly: boolean;
  let rest: string[];
  try {
    const args = readCombinedArgs(process.argv.slice(2));
    // Checked before serving: a misspelt toolset must not silently hide tools.
    toolsets = parseToolsets(args.toolsets ?? process.env[TOOLSETS_VARIABLE]);
    readOnly = args.readOnly || readReadOnly(process.env);
    rest = args.rest;
  } catch (error) {
    process.stderr.write(
      `${SERVER_NAME}: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}\n`,
    );
    process.exitCode = 2;
    return;
  }
  void runServerMain({
    name: SERVER_NAME,
    version,
    argv: rest,
    // Over HTTP the runner passes the caller's tenant context; over stdio none, and the server builds its own.
    factory: (request) => createServer({ platform: request?.platform, toolsets, readOnly, toolList }),
    defaultPort: 3100,
    help: HELP,
  });
}

main();
