/**
 * Waiting for a speech synthesis (core's `speech-text` job, whose parts run in this server process) and
 * answering, through mcp-common's `respondWithJob` like every long-job tool: progress notifications
 * ("3 of 7 parts done; 2 waiting for a free slot (key limit 3)"), a handle naming get_speech while it runs,
 * the saved WAV when done, and — by the rule every server follows — a failed or cancelled synthesis as
 * `done: true, outcome: "failed" | "cancelled"` with the reason, not as a tool error. Work that could not
 * be done at all (credits, the network, an uncertain submission) is a tool error.
 *
 * The batch is not polled here: its parts are polled by the core client through the job engine. A call
 * only follows the batch until it stops, the call's wait is over, or the call is cancelled.
 */

import type { SpeechTextJob, TextSynthesisProgress } from '@polymodal/core';
import type { PollOutcome } from '@polymodal/core/jobs';
import {
  describeSpeechProgress,
  speechTextReason as reasonOf,
  speechTextView as speechView,
} from '@polymodal/core/views';
import type { CallToolResult, ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  type JobPollRequest,
  jobOutputSchema,
  outputLink,
  type PresentedJob,
  respondWithJob,
  type WaitExtra,
} from '@polymodal/mcp-common';

/** The tool that keeps waiting on a synthesis. */
export const SPEECH_WAIT_TOOL = 'get_speech';
/** Audio inlined on request only up to this size; larger files are only linked. */
const MAX_INLINE_AUDIO_BYTES = 1024 * 1024;

/**
 * The shared long-job output schema: the tool's own fields (saved file, sizes, parts, …) are further
 * properties it allows, explained in the README's Tools section rather than in every tools/list.
 */
export const speechOutcomeShape = jobOutputSchema;

/** Follows a batch until it stops, the deadline comes, or the call is cancelled (which rejects). */
function followSpeech(
  job: SpeechTextJob,
  request: JobPollRequest<SpeechTextJob>,
): Promise<PollOutcome<SpeechTextJob>> {
  const outcome = (): PollOutcome<SpeechTextJob> => ({
    done: job.state !== 'running',
    value: job,
    reads: 0,
    transientErrors: 0,
  });
  return new Promise<PollOutcome<SpeechTextJob>>((resolve, reject) => {
    if (job.state !== 'running') {
      resolve(outcome());
      return;
    }
    // Registered before this call's own abort listener, so a cancellation is counted before it rejects.
    const leave = job.follow(request.signal);
    let timer: NodeJS.Timeout | undefined;
    let stopListening = () => {};
    const finish = (settle: () => void) => {
      leave();
      stopListening();
      request.signal.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      settle();
    };
    const onChange = () => {
      if (job.state !== 'running') finish(() => resolve(outcome()));
      else void request.onProgress(job);
    };
    const onAbort = () => finish(() => reject(request.signal.reason));
    if (request.signal.aborted) {
      onAbort();
      return;
    }
    request.signal.addEventListener('abort', onAbort, { once: true });
    stopListening = job.onChange(onChange);
    timer = setTimeout(() => finish(() => resolve(outcome())), Math.max(0, request.deadline - Date.now()));
    void request.onProgress(job);
  });
}

export async function waitForSpeech(
  deps: ToolDeps,
  options: { job: SpeechTextJob; waitSeconds: number; extra: WaitExtra; inlineAudio: boolean },
): Promise<CallToolResult> {
  const { job, extra } = options;
  const governor = deps.platform.client.speech.governor;
  const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    return await respondWithJob<SpeechTextJob>({
      extra,
      jobId: job.id,
      waitSeconds: options.waitSeconds,
      deadline: deadline.at,
      poll: async (request) => {
        const followed = await followSpeech(job, request);
        // The work could not be done (credits, the network, the ledger…): a tool error, with its reason.
        if (job.state === 'error') throw job.reason;
        return followed;
      },
      view: (current) => speechView(current, governor.limit),
      waitTool: SPEECH_WAIT_TOOL,
      present: (current) => presentSpeech(current, governor.limit, options.inlineAudio),
    });
  } finally {
    deadline.dispose();
  }
}

function partsFields(progress: TextSynthesisProgress) {
  return { partsTotal: progress.parts, partsDone: progress.finished, partsQueued: progress.queued };
}

function presentSpeech(job: SpeechTextJob, limit: number | undefined, inlineAudio: boolean): PresentedJob {
  const { message } = describeSpeechProgress(job.progress, limit);
  if (job.state === 'running') {
    return { text: `Speech ${job.id} is still running: ${message}.`, structured: partsFields(job.progress) };
  }
  if (job.state === 'cancelled') {
    return {
      text: `Speech ${job.id} was ${reasonOf(job)}. Nothing was saved.`,
      structured: partsFields(job.progress),
      next: 'call synthesize_speech again with the same arguments to finish it: parts already made are reused, not paid again',
    };
  }
  if (job.state !== 'done' || !job.outcome) {
    return {
      text: `Speech ${job.id} failed: ${reasonOf(job)}. Nothing was saved; parts already made are kept.`,
      structured: partsFields(job.progress),
      next: 'change the text of the failed part and call synthesize_speech again (parts already made are reused; the failed part is paid again)',
    };
  }
  const result = job.outcome;
  const resumed = result.parts.filter((part) => part.resumed).length;
  const seconds = result.durationSeconds === undefined ? '' : `, ${result.durationSeconds.toFixed(1)} s`;
  const links: CallToolResult['content'] = [
    outputLink(result.savedPath, {
      mimeType: 'audio/wav',
      description: `Speech ${job.id}`,
      size: result.sizeBytes,
    }),
  ];
  if (inlineAudio && result.wav && result.sizeBytes <= MAX_INLINE_AUDIO_BYTES) {
    links.push({ type: 'audio', data: result.wav.toString('base64'), mimeType: 'audio/wav' });
  }
  return {
    text: `Speech saved to ${result.savedPath} (${result.parts.length} part${result.parts.length > 1 ? 's' : ''}${seconds}${resumed > 0 ? `; ${resumed} reused from earlier` : ''}).`,
    links,
    structured: {
      savedPath: result.savedPath,
      sizeBytes: result.sizeBytes,
      ...(result.durationSeconds === undefined ? {} : { durationSeconds: result.durationSeconds }),
      parts: result.parts.map((part) => ({ text: part.text, taskId: part.taskId, resumed: part.resumed })),
      ...partsFields(job.progress),
    },
    next: `open the saved file ${result.savedPath}`,
  };
}
