/**
 * The Polymodal media generation MCP server: catalog video, image-to-video, video flashcards and speech
 * synthesis, with the long-job contract, file confinement, error results and logging of mcp-common.
 */
import { createRequire } from 'node:module';
import {
  createPolymodalServer,
  type PolymodalServerDeps,
  type ServerInstance,
} from '@polymodal/mcp-common/host';
import { MEDIA_ICON } from './icon.js';
import { mediaTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-media';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal media generation. Every generation costs credits and takes from seconds to minutes; tools wait up to waitSeconds (max 50) with progress, then return done=false with a jobId and the tool to call next — never start the same work again to "retry", continue it instead (list_jobs shows what this installation started). Finished media is saved into the output directory and returned as a resource link with its path. Videos: list_video_models, then generate_video (catalog models) or image_to_video; follow up with get_video_job. Flashcards from a video file or URL: create_flashcards, then get_flashcards. Speech: synthesize_speech (any length; long text is split and joined), get_speech to keep waiting; cloned voices need register_voice with the owner's consent, list_voices shows them.`;

export type MediaServerDeps = PolymodalServerDeps;

export function createServer(deps: MediaServerDeps = {}): ServerInstance {
  return createPolymodalServer({
    name: SERVER_NAME,
    title: 'Polymodal media generation',
    version,
    instructions: INSTRUCTIONS,
    deps,
    icons: [MEDIA_ICON],
    groups: [mediaTools],
  });
}

export { mediaTools } from './tools/index.js';
