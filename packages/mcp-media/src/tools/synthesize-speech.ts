/**
 * synthesize_speech: speech of any length as one WAV file. Text over 200 characters is split at sentence
 * boundaries, the parts are synthesised under the key's concurrency limit and joined in order. The
 * synthesis is core's `speech-text` job of the job ledger (`speech.startTextJob`): joined, not restarted, by
 * a later call or get_speech, in this process or another one, also after a restart; the call follows it
 * through the long-job contract (speech-result.ts).
 */
import type { SpeechRequest } from '@polymodal/core';
import { TTS_LANGUAGES, TTS_MODEL_A_EXPRESSIONS, TTS_MODELS } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createWaitSecondsSchema,
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEDIA_PLAYER_VIEW } from '../views/media-player-view.js';
import { outputName } from './media-tool-deps.js';
import { speechOutcomeShape, waitForSpeech } from './speech-result.js';

const MAX_TEXT = 20_000;

const DESCRIPTION = `Speaks text (any length) into one saved WAV; voice: a register_voice cloneAudio. Costs credits per part; the same request again reuses paid parts. If done=false: get_speech.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const synthesizeSpeechInput = {
  text: z.string().min(1).max(MAX_TEXT),
  language: z.enum(TTS_LANGUAGES).optional(),
  model: z.enum(TTS_MODELS).optional(),
  voice: z.string().min(1).optional().describe('cloneAudio, or an https URL (with consent).'),
  voiceTranscript: z.string().optional(),
  consent: z.boolean().optional(),
  speaker: z.string().min(1).optional(),
  instruct: z.string().min(1).optional(),
  modelAExpression: z.enum(TTS_MODEL_A_EXPRESSIONS).optional(),
  seed: z.number().int().optional(),
  fileName: z.string().min(1).optional(),
  inlineAudio: z.boolean().default(false).describe('Inline too (max 1 MB).'),
  allowResubmit: z.boolean().default(false).describe('Only if an error asks.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export const synthesizeSpeechTool = defineTool({
  name: 'synthesize_speech',
  title: 'Synthesise speech',
  description: DESCRIPTION,
  inputSchema: synthesizeSpeechInput,
  outputSchema: speechOutcomeShape,
  asTask: true,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  view: MEDIA_PLAYER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      await deps.roots.ready();
      const language = args.language;
      const request: SpeechRequest = {
        text: args.text,
        ...(language ? { language } : {}),
        // Thai, Malay and Lao must use model_d; choosing it spares the agent a refused call.
        ...(args.model
          ? { model: args.model }
          : language && ['th', 'ms', 'lo'].includes(language)
            ? { model: 'model_d' as const }
            : {}),
        ...(args.voice ? { clone_audio: args.voice } : {}),
        ...(args.voiceTranscript !== undefined ? { clone_text: args.voiceTranscript } : {}),
        ...(args.consent === undefined ? {} : { consent: args.consent }),
        ...(args.speaker ? { speaker: args.speaker } : {}),
        ...(args.instruct ? { instruct: args.instruct } : {}),
        ...(args.modelAExpression ? { model_a_expression: args.modelAExpression } : {}),
        ...(args.seed === undefined ? {} : { seed: args.seed }),
      };
      // Every part is checked, and the job recorded, before any part is sent.
      const job = await deps.platform.client.speech.startTextJob(request, {
        // Without a name, the audio is saved as `<jobId>.wav`.
        ...(args.fileName ? { fileName: outputName(args.fileName, '', '.wav') } : {}),
        allowResubmit: args.allowResubmit,
        signal: extra.signal,
      });
      return await waitForSpeech(deps, {
        job,
        waitSeconds: args.waitSeconds,
        extra,
        inlineAudio: args.inlineAudio,
      });
    } catch (error) {
      return toolErrorFor(error, deps);
    }
  },
});
