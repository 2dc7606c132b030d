/**
 * Registers every tool of the media server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CATALOG_VIDEO_SERVICE,
  FLASHCARDS_SERVICE,
  IMAGE_TO_VIDEO_SERVICE,
  SPEECH_TEXT_SERVICE,
} from '@polymodal/core/constants';
import { registerListJobsTool } from '@polymodal/mcp-common';
import { registerCreateFlashcards } from './create-flashcards.js';
import { registerGenerateVideo } from './generate-video.js';
import { registerGetFlashcards } from './get-flashcards.js';
import { registerGetVideoJob } from './get-video-job.js';
import { registerImageToVideo } from './image-to-video.js';
import { registerListVideoModels } from './list-video-models.js';
import type { MediaToolDeps } from './media-tool-deps.js';
import { registerVoiceTools } from './register-voice.js';
import { registerSynthesizeSpeech } from './synthesize-speech.js';

export type { MediaToolDeps } from './media-tool-deps.js';

export function registerMediaTools(server: McpServer, deps: MediaToolDeps): void {
  registerListVideoModels(server, deps);
  registerGenerateVideo(server, deps);
  registerImageToVideo(server, deps);
  registerGetVideoJob(server, deps);
  registerCreateFlashcards(server, deps);
  registerGetFlashcards(server, deps);
  registerSynthesizeSpeech(server, deps);
  registerVoiceTools(server, deps);
  registerListJobsTool(server, {
    ledger: deps.context.ledger,
    // A speech synthesis is listed as one job, its parts (speech-synthesis entries) beneath it.
    services: [CATALOG_VIDEO_SERVICE, IMAGE_TO_VIDEO_SERVICE, FLASHCARDS_SERVICE, SPEECH_TEXT_SERVICE],
    secrets: deps.context.secrets,
    hiddenDirs: () => deps.context.hiddenDirs(),
    getTool: 'get_video_job or get_flashcards',
    noun: 'media jobs',
  });
}
