/**
 * Waiting for a flashcards job (mcp-common's `respondWithJob`); a finished job's full result is saved as
 * JSON into the output directory and summarised (segments with translations and words) in the result. A
 * failed or cancelled job is `done: true` with its outcome and reason, as on every server.
 */

import type { FlashcardJob, FlashcardResult } from '@polymodal/core';
import { jobErrorText } from '@polymodal/core/constants';
import { flashcardsJobView } from '@polymodal/core/views';
import type { CallToolResult, ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  jobOutputSchema,
  outputLink,
  type PresentedJob,
  type ProgressReporter,
  respondWithJob,
  type ToolDeadline,
  type WaitExtra,
} from '@polymodal/mcp-common';

/** Segments listed in the result itself; all of them are in the saved JSON. */
const LISTED_SEGMENTS = 12;

/**
 * The shared long-job output schema (issue 14): the tool's own fields (saved file, sizes, parts, …) are
 * further properties it allows, explained in the README's Tools section rather than in every tools/list.
 */
export const flashcardsOutcomeShape = jobOutputSchema;

function summarize(result: FlashcardResult) {
  return result.segments.slice(0, LISTED_SEGMENTS).map((segment) => ({
    index: segment.index,
    start: segment.start,
    end: segment.end,
    text: segment.text,
    translation: segment.translation ?? null,
    words: segment.word_items.map((item) => ({
      word: item.word,
      pronunciation: item.pronunciation ?? null,
      meaning: item.meaning ?? null,
    })),
    clipUrl: segment.video?.rendered_segment_url ?? segment.video?.original_segment_url ?? null,
  }));
}

export async function waitForFlashcards(
  deps: ToolDeps,
  options: {
    jobId: string;
    waitSeconds: number;
    extra: WaitExtra;
    resumed?: boolean;
    known?: { status: string };
    /** The reporter an upload already used, so that progress stays monotonic. */
    reporter?: ProgressReporter;
    /** The call's deadline, when the call did more before the wait (a start): it bounds the whole call. */
    deadline?: ToolDeadline;
  },
): Promise<CallToolResult> {
  const { jobId, extra } = options;
  const deadline = options.deadline ?? createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    return await respondWithJob<FlashcardJob>({
      extra,
      jobId,
      waitSeconds: options.waitSeconds,
      deadline: deadline.at,
      poll: (request) => deps.platform.client.flashcards.poll(jobId, request),
      view: flashcardsJobView,
      waitTool: 'get_flashcards',
      ...(options.known ? { known: options.known } : {}),
      ...(options.reporter ? { reporter: options.reporter } : {}),
      structured: options.resumed ? { resumed: true } : {},
      present: (job, done) => presentFlashcards(deps, job, done),
    });
  } finally {
    // A deadline the caller gave is the caller's to dispose of.
    if (!options.deadline) deadline.dispose();
  }
}

async function presentFlashcards(deps: ToolDeps, job: FlashcardJob, done: boolean): Promise<PresentedJob> {
  const jobId = job.job_id;
  const stage = job.progress?.stage;
  if (!done) {
    return {
      text: `Flashcards ${jobId} are ${job.status}${stage ? ` (${stage})` : ''}.`,
      structured: stage ? { stage } : {},
    };
  }
  if (job.successful !== true || !job.result) {
    const reason = jobErrorText(job.error) ?? 'no reason given';
    return {
      text: `Flashcards ${jobId} ended ${job.status}: ${reason}. Nothing was saved.`,
      next: 'check the video (format, length, language) and call create_flashcards again with newJob=true',
    };
  }
  const result = job.result;
  const savedPath = await deps.platform.files.writeOutput(
    `flashcards-${jobId}.json`,
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const wordCount = result.segments.reduce((sum, segment) => sum + segment.word_items.length, 0);
  const title = result.media?.title ?? job.media?.title ?? null;
  return {
    text: `Flashcards ${jobId} are ready: ${result.segments.length} segments, ${wordCount} words (${result.source_language} → ${result.target_language})${title ? ` from "${title}"` : ''}. Full result saved to ${savedPath}.`,
    links: [outputLink(savedPath, { mimeType: 'application/json', description: `Flashcards ${jobId}` })],
    next: `open ${savedPath} for every segment and word, or follow the clip URLs`,
    structured: {
      title,
      durationSeconds: result.media?.duration ?? job.media?.duration ?? null,
      sourceLanguage: result.source_language,
      targetLanguage: result.target_language,
      segmentCount: result.segments.length,
      wordCount,
      segments: summarize(result),
      savedPath,
    },
  };
}
