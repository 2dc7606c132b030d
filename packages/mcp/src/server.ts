/**
 * The combined Polymodal MCP server: the tools of the meeting, media and speech servers on one server with
 * one context (one key, one ledger, one output directory), so a user adds one entry to their host instead of
 * three. Each server's tool group is installed unchanged; the toolsets choose which servers are
 * included, and the read-only mode keeps only the tools annotated read-only.
 */
import { createRequire } from 'node:module';
import {
  type ComposedServer,
  composePolymodalServers,
  type PolymodalServerDeps,
  readReadOnly,
  type ServerInstance,
} from '@polymodal/mcp-common/host';
import { mediaTools } from '@polymodal/mcp-media';
import { meetingTools } from '@polymodal/mcp-meeting';
import { speechTools } from '@polymodal/mcp-speech';
import { POLYMODAL_ICON } from './icon.js';
import { parseToolsets, TOOLSETS_VARIABLE, type ToolsetName } from './parse-toolsets.js';

export const SERVER_NAME = 'polymodal-mcp';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

interface Toolset extends ComposedServer {
  /** What the toolset offers, for the server's instructions to the model. */
  instructions: string;
}

const TOOLSETS: Record<ToolsetName, Toolset> = {
  meeting: {
    name: 'meeting',
    tools: meetingTools,
    instructions:
      'Meetings: summarize_meeting with a local recording (4 credits per started minute), then get_meeting until done; update_meeting names speakers, export_meeting saves files.',
  },
  media: {
    name: 'media',
    tools: mediaTools,
    instructions:
      'Media (every generation costs credits): list_video_models then generate_video or image_to_video, get_video_job to keep waiting; create_flashcards then get_flashcards; synthesize_speech then get_speech.',
  },
  speech: {
    name: 'speech',
    tools: speechTools,
    instructions:
      'Speech and language: transcribe_thai for Thai recordings, score_reading then get_reading_score, ask_llm for the shared LLM (list_llm_models first).',
  },
};

export interface CombinedServerDeps extends PolymodalServerDeps {
  /** Toolsets the model sees; default POLYMODAL_TOOLSETS, else all. */
  toolsets?: readonly ToolsetName[];
}

export function createServer(deps: CombinedServerDeps = {}): ServerInstance {
  const env = deps.env ?? process.env;
  const toolsets = deps.toolsets ?? parseToolsets(env[TOOLSETS_VARIABLE]);
  const readOnly = deps.readOnly ?? readReadOnly(env);
  const { toolsets: _toolsets, ...serverDeps } = deps;
  const instructions = [
    'Polymodal tools in one server. Long jobs wait up to waitSeconds (max 50) with progress, then return done=false with a jobId and the tool to call next: continue the job, never start the same work again. list_jobs shows every job started here.',
    ...toolsets.map((name) => TOOLSETS[name].instructions),
    ...(readOnly
      ? ['Read-only mode: only tools that neither spend credits nor change anything are available.']
      : []),
  ].join('\n');
  return composePolymodalServers({
    name: SERVER_NAME,
    title: 'Polymodal',
    icons: [POLYMODAL_ICON],
    version,
    instructions,
    deps: { ...serverDeps, readOnly },
    servers: toolsets.map((name) => TOOLSETS[name]),
  });
}

export { parseToolsets, TOOLSET_NAMES, TOOLSETS_VARIABLE, type ToolsetName } from './parse-toolsets.js';
