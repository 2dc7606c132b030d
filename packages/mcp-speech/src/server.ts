/**
 * The Polymodal speech and language MCP server: streaming Thai recognition, reading scores and the
 * platform's shared LLM, with the long-job contract, file confinement, error results and logging of
 * mcp-common.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { READING_SCORE_POLL_INTERVAL_MS } from '@polymodal/core';
import {
  createServerContext,
  type ServerContext,
  type ServerInstance,
  syncRoots,
} from '@polymodal/mcp-common';
import { registerSpeechTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-speech';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal speech and language services. transcribe_thai turns a Thai audio file into text with timed segments (real-time pace by default; use speed for long files). score_reading scores a student's Thai reading against reference text or audio (if it returns done=false, call get_reading_score with the jobId). list_llm_models shows the shared LLM's models; ask_llm sends a prompt or a conversation to one of them and returns the text.`;

export interface SpeechServerDeps {
  /** Shared context; when absent one is built from `env` and closed by cleanup(). */
  context?: ServerContext;
  env?: NodeJS.ProcessEnv;
  /** Pause between polls of a queued reading score (default 2000 ms). */
  pollIntervalMs?: number;
}

export function createServer(deps: SpeechServerDeps = {}): ServerInstance {
  const ownsContext = deps.context === undefined;
  const context = deps.context ?? createServerContext({ env: deps.env, name: SERVER_NAME });
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Polymodal speech and language', version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const detachLog = context.log.attach(server);
  const roots = syncRoots(server, context.files, { log: context.log });
  registerSpeechTools(server, {
    context,
    roots,
    pollIntervalMs: deps.pollIntervalMs ?? READING_SCORE_POLL_INTERVAL_MS,
  });
  return {
    server,
    async cleanup() {
      detachLog();
      if (ownsContext) await context.close();
    },
  };
}

export type { SpeechToolDeps } from './tools/index.js';
