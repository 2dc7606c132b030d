/**
 * The Polymodal speech and language MCP server: tools for the platform's shared LLM, with the error
 * results and logging of mcp-common.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createServerContext, type ServerContext, type ServerInstance } from '@polymodal/mcp-common';
import { registerSpeechTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-speech';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal speech and language services. list_llm_models shows the shared LLM's models; ask_llm sends a prompt or a conversation to one of them and returns the text.`;

export interface SpeechServerDeps {
  /** Shared context; when absent one is built from `env` and closed by cleanup(). */
  context?: ServerContext;
  env?: NodeJS.ProcessEnv;
}

export function createServer(deps: SpeechServerDeps = {}): ServerInstance {
  const ownsContext = deps.context === undefined;
  const context = deps.context ?? createServerContext({ env: deps.env, name: SERVER_NAME });
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Polymodal speech and language', version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const detachLog = context.log.attach(server);
  registerSpeechTools(server, { context });
  return {
    server,
    async cleanup() {
      detachLog();
      if (ownsContext) await context.close();
    },
  };
}

export type { SpeechToolDeps } from './tools/index.js';
