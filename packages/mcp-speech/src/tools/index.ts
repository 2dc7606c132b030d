/**
 * The speech server's tools, in the order `tools/list` shows them, and its prompts.
 */
import { jobsServedBy, listJobsTool, toolGroup } from '@polymodal/mcp-common';
import { SPEECH_ICON } from '../icon.js';
import { checkThaiReadingPrompt } from '../prompts/check-thai-reading.js';
import { thaiTranscriptPrompt } from '../prompts/thai-transcript.js';
import { askLlmTool } from './ask-llm.js';
import { getReadingScoreTool } from './get-reading-score.js';
import { getThaiAsrConfigTool } from './get-thai-asr-config.js';
import { listLlmModelsTool } from './list-llm-models.js';
import { scoreReadingTool } from './score-reading.js';
import { transcribeThaiTool } from './transcribe-thai.js';

export const speechTools = toolGroup({
  icons: [SPEECH_ICON],
  tools: [
    listLlmModelsTool,
    askLlmTool,
    scoreReadingTool,
    getReadingScoreTool,
    transcribeThaiTool,
    getThaiAsrConfigTool,
    listJobsTool({ ...jobsServedBy(['speech']), noun: 'queued reading scores' }),
  ],
  prompts: [checkThaiReadingPrompt, thaiTranscriptPrompt],
});
