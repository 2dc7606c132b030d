/**
 * The media server's tools, in the order `tools/list` shows them, and its prompts.
 */
import { jobsServedBy, listJobsTool, toolGroup } from '@polymodal/mcp-common';
import { MEDIA_ICON } from '../icon.js';
import { makeVideoPrompt } from '../prompts/make-video.js';
import { speakTextPrompt } from '../prompts/speak-text.js';
import { videoFlashcardsPrompt } from '../prompts/video-flashcards.js';
import { createFlashcardsTool } from './create-flashcards.js';
import { generateVideoTool } from './generate-video.js';
import { getFlashcardsTool } from './get-flashcards.js';
import { getSpeechTool } from './get-speech.js';
import { getVideoJobTool } from './get-video-job.js';
import { imageToVideoTool } from './image-to-video.js';
import { listVideoModelsTool } from './list-video-models.js';
import { listVoicesTool, registerVoiceTool } from './register-voice.js';
import { synthesizeSpeechTool } from './synthesize-speech.js';

export const mediaTools = toolGroup({
  icons: [MEDIA_ICON],
  tools: [
    listVideoModelsTool,
    generateVideoTool,
    imageToVideoTool,
    getVideoJobTool,
    createFlashcardsTool,
    getFlashcardsTool,
    synthesizeSpeechTool,
    // get_speech continues what synthesize_speech starts, so the two are listed together.
    getSpeechTool,
    registerVoiceTool,
    listVoicesTool,
    // A speech synthesis is listed as one job, its parts (speech-synthesis entries) beneath it.
    listJobsTool({ ...jobsServedBy(['media']), noun: 'media jobs' }),
  ],
  prompts: [makeVideoPrompt, videoFlashcardsPrompt, speakTextPrompt],
  // A speech synthesis that outlives a call is the platform client's (one per context), not the server's.
});
