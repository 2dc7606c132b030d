/**
 * The Polymodal media generation MCP server: catalog video, image-to-video, video flashcards and speech
 * synthesis, with the long-job contract, file confinement, error results and logging of mcp-common.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  createServerContext,
  type ServerContext,
  type ServerInstance,
  syncRoots,
} from '@polymodal/mcp-common';
import { registerMediaTools } from './tools/index.js';
import { createSpeechJobs } from './tools/speech-jobs.js';

export const SERVER_NAME = 'polymodal-mcp-media';
/** Pause between status reads of video and flashcard jobs (speech follows the service's Retry-After). */
export const MEDIA_POLL_INTERVAL_MS = 3_000;

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal media generation. Every generation costs credits and takes from seconds to minutes; tools wait up to waitSeconds (max 50) with progress, then return done=false with a jobId and the tool to call next — never start the same work again to "retry", continue it instead (list_jobs shows what this installation started). Finished media is saved into the output directory and returned as a resource link with its path. Videos: list_video_models, then generate_video (catalog models) or image_to_video; follow up with get_video_job. Flashcards from a video file or URL: create_flashcards, then get_flashcards. Speech: synthesize_speech (any length; long text is split and joined), get_speech to keep waiting; cloned voices need register_voice with the owner's consent, list_voices shows them.`;

export interface MediaServerDeps {
  /** Shared context; when absent one is built from `env` and closed by cleanup(). */
  context?: ServerContext;
  env?: NodeJS.ProcessEnv;
  /** Pause between status reads of video and flashcard jobs (default 3000 ms). */
  pollIntervalMs?: number;
}

export function createServer(deps: MediaServerDeps = {}): ServerInstance {
  const ownsContext = deps.context === undefined;
  const context = deps.context ?? createServerContext({ env: deps.env, name: SERVER_NAME });
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Polymodal media generation', version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const detachLog = context.log.attach(server);
  const roots = syncRoots(server, context.files, { log: context.log });
  registerMediaTools(server, {
    context,
    roots,
    pollIntervalMs: deps.pollIntervalMs ?? MEDIA_POLL_INTERVAL_MS,
    speechJobs: createSpeechJobs(),
  });
  return {
    server,
    async cleanup() {
      detachLog();
      if (ownsContext) await context.close();
    },
  };
}

export type { MediaToolDeps } from './tools/index.js';
