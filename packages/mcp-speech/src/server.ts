/**
 * The Polymodal speech and language MCP server: streaming Thai recognition, reading scores and the
 * platform's shared LLM, with the long-job contract, file confinement, error results and logging of
 * mcp-common.
 */
import { createRequire } from 'node:module';
import {
  createPolymodalServer,
  type PolymodalServerDeps,
  type ServerInstance,
} from '@polymodal/mcp-common/host';
import { SPEECH_ICON } from './icon.js';
import { speechTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-speech';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal speech and language services. transcribe_thai turns a Thai audio file into text with timed segments (real-time pace by default; use speed for long files). score_reading scores a student's Thai reading against reference text or audio (if it returns done=false, call get_reading_score with the jobId). list_llm_models shows the shared LLM's models; ask_llm sends a prompt or a conversation to one of them and returns the text.`;

export type SpeechServerDeps = PolymodalServerDeps;

export function createServer(deps: SpeechServerDeps = {}): ServerInstance {
  return createPolymodalServer({
    name: SERVER_NAME,
    title: 'Polymodal speech and language',
    version,
    instructions: INSTRUCTIONS,
    deps,
    icons: [SPEECH_ICON],
    groups: [speechTools],
  });
}

export { speechTools } from './tools/index.js';
