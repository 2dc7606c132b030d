/**
 * get_speech: keeps waiting on a synthesis synthesize_speech started, with the same answer (progress,
 * handle, saved WAV, or a failed or cancelled outcome). The handle is the synthesis's job id in the ledger,
 * good in any process and after a restart: a synthesis that no process runs any more is resumed here (its
 * parts already made are reused, never paid again; the parts it had not sent yet are sent).
 */
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEDIA_PLAYER_VIEW } from '../views/media-player-view.js';
import { speechOutcomeShape, waitForSpeech } from './speech-result.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getSpeechInput = {
  jobId: z.string().min(1),
  inlineAudio: z.boolean().default(false),
  waitSeconds: createWaitSecondsSchema(40),
};

export const getSpeechTool = defineTool({
  name: 'get_speech',
  title: 'Get a speech synthesis',
  description:
    'Waits (waitSeconds, default 40) on a synthesize_speech job, also after a restart (resumes it; paid parts are reused); returns the WAV.',
  inputSchema: getSpeechInput,
  outputSchema: speechOutcomeShape,
  asTask: true,
  annotations: {
    // Not read-only, like get_video_job and get_flashcards: a finished synthesis is saved into the output
    // directory, so a read-only client (the combined server's --read-only) must not see it.
    readOnlyHint: false,
    // It only rewrites this job's own file with the same audio.
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  view: MEDIA_PLAYER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      const job = await deps.platform.client.speech.retrieveTextJob(args.jobId);
      if (!job) {
        throw new ValidationError(
          `No speech synthesis ${args.jobId} is recorded by this installation. Call synthesize_speech again with the same arguments: parts already made are reused, not paid again.`,
          [{ path: 'jobId', message: 'unknown speech synthesis' }],
        );
      }
      return await waitForSpeech(deps, {
        job,
        waitSeconds: args.waitSeconds,
        extra,
        inlineAudio: args.inlineAudio,
      });
    } catch (error) {
      return toolErrorFor(error, deps, { jobId: args.jobId });
    }
  },
});
