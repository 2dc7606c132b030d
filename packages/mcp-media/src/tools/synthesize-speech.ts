/**
 * synthesize_speech: speech of any length as one WAV file. Text over 200 characters is split at sentence
 * boundaries, the parts are synthesised under the key's concurrency limit and joined in order. The work
 * runs in the server process (speech-jobs.ts) and is joined, not restarted, by a later call or get_speech;
 * the call follows it through the long-job contract (speech-result.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  fingerprint,
  type SpeechRequest,
  TTS_LANGUAGES,
  TTS_MODEL_A_EXPRESSIONS,
  TTS_MODELS,
} from '@polymodal/core';
import { createWaitSecondsSchema, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { registerGetSpeech } from './get-speech.js';
import { type MediaToolDeps, mediaToolError, outputName } from './media-tool-deps.js';
import { speechOutcomeShape, waitForSpeech } from './speech-result.js';

const MAX_TEXT = 20_000;

const DESCRIPTION = `Synthesises speech from text into one WAV file saved in the output directory (returned as a resource link). Text of any length: over 200 characters it is split at sentence boundaries, the parts are synthesised in parallel within the key's concurrent-task limit and joined in order. Languages: ${TTS_LANGUAGES.join(', ')} (default en); Thai (th), Malay (ms) and Lao (lo) use model_d, which is chosen automatically for them. A cloned voice: pass the clone_audio path register_voice returned as voice. Costs credits per part. Repeating the same request continues or reuses the earlier parts instead of paying again. Waits up to waitSeconds with progress ("3 of 7 parts done; 2 waiting for a free slot (key limit 3)"); if not finished, returns done=false with a jobId — call get_speech with it. Cancelling the call stops parts not yet sent (unless another call is waiting on the same synthesis); parts already sent are kept for a repeat. A part the service fails is reported as done=true, outcome=failed with its reason.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const synthesizeSpeechInput = {
  text: z.string().min(1).max(MAX_TEXT).describe('What to say (any length up to 20 000 characters).'),
  language: z.enum(TTS_LANGUAGES).optional(),
  model: z
    .enum(TTS_MODELS)
    .optional()
    .describe('Default: chosen by the service from the language (model_d for th/ms/lo).'),
  voice: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Cloned voice: the clone_audio path from register_voice (or list_voices), or a public https audio URL (then consent is needed).',
    ),
  voiceTranscript: z
    .string()
    .optional()
    .describe('Transcript of the voice recording (clone_text), when not registered with one.'),
  consent: z
    .boolean()
    .optional()
    .describe('Required true when voice is a public https URL: the voice owner agreed.'),
  speaker: z
    .string()
    .min(1)
    .optional()
    .describe('Built-in speaker of model_b or model_c (without a cloned voice).'),
  instruct: z
    .string()
    .min(1)
    .optional()
    .describe('Style instruction (model_b, or model_d without a cloned voice).'),
  modelAExpression: z.enum(TTS_MODEL_A_EXPRESSIONS).optional().describe('Only model_a with language vi.'),
  seed: z.number().int().optional().describe('0..2147483647 for a repeatable voice; omit for random.'),
  fileName: z.string().min(1).optional().describe('Name of the saved WAV (default speech-<jobId>.wav).'),
  inlineAudio: z.boolean().default(false).describe('Also return the audio inline (only if at most 1 MB).'),
  allowResubmit: z
    .boolean()
    .default(false)
    .describe(
      'Only after an error saying a part was interrupted: send it again although it may already exist.',
    ),
  waitSeconds: createWaitSecondsSchema(40),
};

export function registerSynthesizeSpeech(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'synthesize_speech',
    {
      title: 'Synthesise speech',
      description: DESCRIPTION,
      inputSchema: synthesizeSpeechInput,
      outputSchema: speechOutcomeShape,
      annotations: { title: 'Synthesise speech', ...PLATFORM_WORK_ANNOTATIONS },
    },
    async (args, extra) => {
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
        const speech = deps.context.polymodal.speech;
        // Every part is checked here, before any job exists.
        speech.validate({ ...request, text: args.text.slice(0, 1) });
        const jobId = `speech_${fingerprint({ request }).slice(0, 20)}`;
        const fileName = outputName(args.fileName, `${jobId}.wav`, '.wav');
        const { job } = deps.speechJobs.start(jobId, async (report, signal) => {
          const result = await speech.synthesizeText(request, {
            onProgress: report,
            signal,
            ...(args.allowResubmit ? { allowResubmit: true } : {}),
          });
          const savedPath = await deps.context.files.writeOutput(fileName, result.wav);
          return {
            savedPath,
            sizeBytes: result.wav.length,
            durationSeconds: result.durationSeconds,
            parts: result.parts,
            wav: result.wav,
          };
        });
        return await waitForSpeech(deps, {
          job,
          waitSeconds: args.waitSeconds,
          extra,
          inlineAudio: args.inlineAudio,
        });
      } catch (error) {
        return mediaToolError(error, deps);
      }
    },
  );

  // get_speech continues what this tool starts; registered here so that the two always come together.
  registerGetSpeech(server, deps);
}
