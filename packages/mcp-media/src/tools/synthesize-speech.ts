/**
 * synthesize_speech and get_speech: speech of any length as one WAV file. Text over 200 characters is
 * split at sentence boundaries, the parts are synthesised under the key's concurrency limit and joined in
 * order. The work runs in the server process and is joined, not restarted, by a later call.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  fingerprint,
  type SpeechRequest,
  type TextSynthesisProgress,
  TTS_LANGUAGES,
  TTS_MODEL_A_EXPRESSIONS,
  TTS_MODELS,
  ValidationError,
} from '@polymodal/core';
import {
  createProgressReporter,
  createWaitSecondsSchema,
  jobStatusShape,
  keepWaitingHint,
  outputLink,
  PLATFORM_WORK_ANNOTATIONS,
  type WaitExtra,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { type MediaToolDeps, mediaToolError, outputName } from './media-tool-deps.js';
import type { SpeechJob } from './speech-jobs.js';

/** Audio inlined on request only up to this size; larger files are only linked. */
const MAX_INLINE_AUDIO_BYTES = 1024 * 1024;
const MAX_TEXT = 20_000;

const DESCRIPTION = `Synthesises speech from text into one WAV file saved in the output directory (returned as a resource link). Text of any length: over 200 characters it is split at sentence boundaries, the parts are synthesised in parallel within the key's concurrent-task limit and joined in order. Languages: ${TTS_LANGUAGES.join(', ')} (default en); Thai (th), Malay (ms) and Lao (lo) use model_d, which is chosen automatically for them. A cloned voice: pass the clone_audio path register_voice returned as voice. Costs credits per part. Repeating the same request continues or reuses the earlier parts instead of paying again. Waits up to waitSeconds with progress; if not finished, returns done=false with a jobId — call get_speech with it.`;

export const speechOutcomeShape = {
  ...jobStatusShape,
  savedPath: z.string().optional(),
  sizeBytes: z.number().optional(),
  durationSeconds: z.number().optional(),
  parts: z
    .array(z.object({ text: z.string(), taskId: z.string(), resumed: z.boolean() }))
    .optional()
    .describe('The synthesis tasks, in order; resumed ones were made earlier and not paid again.'),
};

export function registerSynthesizeSpeech(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'synthesize_speech',
    {
      title: 'Synthesise speech',
      description: DESCRIPTION,
      inputSchema: {
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
        modelAExpression: z
          .enum(TTS_MODEL_A_EXPRESSIONS)
          .optional()
          .describe('Only model_a with language vi.'),
        seed: z.number().int().optional().describe('0..2147483647 for a repeatable voice; omit for random.'),
        fileName: z
          .string()
          .min(1)
          .optional()
          .describe('Name of the saved WAV (default speech-<jobId>.wav).'),
        inlineAudio: z
          .boolean()
          .default(false)
          .describe('Also return the audio inline (only if at most 1 MB).'),
        allowResubmit: z
          .boolean()
          .default(false)
          .describe(
            'Only after an error saying a part was interrupted: send it again although it may already exist.',
          ),
        waitSeconds: createWaitSecondsSchema(40),
      },
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
        const { job } = deps.speechJobs.start(jobId, async (report) => {
          const result = await speech.synthesizeText(request, {
            onProgress: report,
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
        return await waitForSpeech(deps, job, args.waitSeconds, extra, args.inlineAudio);
      } catch (error) {
        return mediaToolError(error, deps);
      }
    },
  );

  server.registerTool(
    'get_speech',
    {
      title: 'Get a speech synthesis',
      description:
        'Waits up to waitSeconds (default 40) for a synthesis started by synthesize_speech in this server session and returns the saved WAV when done. After a server restart, call synthesize_speech again with the same arguments instead: finished parts are reused, not paid again.',
      inputSchema: {
        jobId: z.string().min(1).describe('The speech_... jobId synthesize_speech returned.'),
        inlineAudio: z.boolean().default(false),
        waitSeconds: createWaitSecondsSchema(40),
      },
      outputSchema: speechOutcomeShape,
      annotations: {
        title: 'Get a speech synthesis',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (args, extra) => {
      try {
        const job = deps.speechJobs.get(args.jobId);
        if (!job) {
          throw new ValidationError(
            `No speech synthesis ${args.jobId} is known to this server session (it may have restarted). Call synthesize_speech again with the same arguments: parts already made are reused, not paid again.`,
            [{ path: 'jobId', message: 'unknown in this session' }],
          );
        }
        return await waitForSpeech(deps, job, args.waitSeconds, extra, args.inlineAudio);
      } catch (error) {
        return mediaToolError(error, deps, { jobId: args.jobId });
      }
    },
  );
}

function describeProgress(
  progress: TextSynthesisProgress,
  limit: number | undefined,
): { percent: number; message: string } {
  if (progress.parts === 0) return { percent: 0, message: 'starting' };
  const percent = (progress.finished / progress.parts) * 100;
  const waiting =
    progress.queued > 0
      ? `; ${progress.queued} waiting for a free slot (key limit ${limit ?? 'not yet known'})`
      : '';
  return { percent, message: `${progress.finished} of ${progress.parts} parts done${waiting}` };
}

async function waitForSpeech(
  deps: MediaToolDeps,
  job: SpeechJob,
  waitSeconds: number,
  extra: WaitExtra,
  inlineAudio: boolean,
): Promise<CallToolResult> {
  const reporter = createProgressReporter(extra);
  const governor = deps.context.polymodal.speech.governor;
  const listener = (progress: TextSynthesisProgress) => {
    const { percent, message } = describeProgress(progress, governor.limit);
    void reporter.report(percent, message);
  };
  job.listeners.add(listener);
  listener(job.progress);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const outcome = await Promise.race([
      job.promise.then((value) => ({ kind: 'done' as const, value })),
      new Promise<{ kind: 'waiting' }>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'waiting' }), waitSeconds * 1000);
      }),
      new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(extra.signal.reason);
        if (extra.signal.aborted) onAbort();
        else extra.signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    if (outcome.kind === 'waiting') {
      const { percent, message } = describeProgress(job.progress, governor.limit);
      const next = keepWaitingHint('get_speech', job.id);
      return {
        content: [{ type: 'text', text: `Speech ${job.id} is still running: ${message}. ${next}.` }],
        structuredContent: { jobId: job.id, status: 'RUNNING', progress: percent, done: false, next },
      };
    }
    const result = outcome.value;
    const resumed = result.parts.filter((part) => part.resumed).length;
    const seconds = result.durationSeconds === undefined ? '' : `, ${result.durationSeconds.toFixed(1)} s`;
    const content: CallToolResult['content'] = [
      {
        type: 'text',
        text: `Speech saved to ${result.savedPath} (${result.parts.length} part${result.parts.length > 1 ? 's' : ''}${seconds}${resumed > 0 ? `; ${resumed} reused from earlier` : ''}).`,
      },
      outputLink(result.savedPath, {
        mimeType: 'audio/wav',
        description: `Speech ${job.id}`,
        size: result.sizeBytes,
      }),
    ];
    if (inlineAudio && result.sizeBytes <= MAX_INLINE_AUDIO_BYTES) {
      content.push({ type: 'audio', data: result.wav.toString('base64'), mimeType: 'audio/wav' });
    }
    return {
      content,
      structuredContent: {
        jobId: job.id,
        status: 'SUCCESS',
        progress: 100,
        done: true,
        savedPath: result.savedPath,
        sizeBytes: result.sizeBytes,
        ...(result.durationSeconds === undefined ? {} : { durationSeconds: result.durationSeconds }),
        parts: result.parts.map((part) => ({ text: part.text, taskId: part.taskId, resumed: part.resumed })),
      },
    };
  } finally {
    job.listeners.delete(listener);
    if (timer) clearTimeout(timer);
    if (onAbort) extra.signal.removeEventListener('abort', onAbort);
  }
}
