/**
 * Waiting for a flashcards job within the long-job contract; a finished job's full result is saved as
 * JSON into the output directory and summarised (segments with translations and words) in the result.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  FLASHCARDS_SERVICE,
  type FlashcardJob,
  type FlashcardResult,
  isFlashcardJobDone,
  jobErrorText,
} from '@polymodal/core';
import {
  createJobHandle,
  jobStatusShape,
  outputLink,
  type WaitExtra,
  waitForJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import type { MediaToolDeps } from './media-tool-deps.js';

/** Segments listed in the result itself; all of them are in the saved JSON. */
const LISTED_SEGMENTS = 12;

export const flashcardsOutcomeShape = {
  ...jobStatusShape,
  stage: z.string().optional(),
  resumed: z.boolean().optional(),
  title: z.string().nullable().optional(),
  durationSeconds: z.number().nullable().optional(),
  sourceLanguage: z.string().optional(),
  targetLanguage: z.string().optional(),
  segmentCount: z.number().optional(),
  wordCount: z.number().optional(),
  segments: z
    .array(
      z.object({
        index: z.number(),
        start: z.number(),
        end: z.number(),
        text: z.string(),
        translation: z.string().nullable(),
        words: z.array(
          z.object({
            word: z.string(),
            pronunciation: z.string().nullable(),
            meaning: z.string().nullable(),
          }),
        ),
        clipUrl: z.string().nullable(),
      }),
    )
    .optional()
    .describe(`The first ${LISTED_SEGMENTS} segments; the saved JSON has all.`),
  savedPath: z.string().optional().describe('The full result as JSON in the output directory.'),
};

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
  deps: MediaToolDeps,
  options: { jobId: string; waitSeconds: number; extra: WaitExtra; resumed?: boolean },
): Promise<CallToolResult> {
  const { jobId } = options;
  const client = deps.context.polymodal.flashcards;
  const { done, job } = await waitForJob<FlashcardJob>({
    extra: options.extra,
    waitSeconds: options.waitSeconds,
    intervalMs: deps.pollIntervalMs,
    poll: (signal) => client.get(jobId, { signal }),
    isDone: isFlashcardJobDone,
    describe: (current) => ({
      status: current.status,
      progress: current.progress?.percent,
      message:
        current.progress?.message ||
        `${current.status}${current.progress?.stage ? ` (${current.progress.stage})` : ''}`,
    }),
  });
  await deps.context.ledger
    .updateById(FLASHCARDS_SERVICE, jobId, { lastStatus: job.status })
    .catch(() => undefined);
  const resumed = options.resumed ? { resumed: true } : {};
  if (!done) {
    const handle = createJobHandle({
      jobId,
      status: job.status,
      progress: job.progress?.percent,
      waitTool: 'get_flashcards',
    });
    const stage = job.progress?.stage;
    return {
      content: [
        {
          type: 'text',
          text: `Flashcards ${jobId} are ${job.status}${stage ? ` (${stage})` : ''}. ${handle.next}.`,
        },
      ],
      structuredContent: { ...handle, ...(stage ? { stage } : {}), ...resumed },
    };
  }
  if (job.successful !== true || !job.result) {
    const reason = jobErrorText(job.error) ?? 'no reason given';
    return {
      isError: true,
      content: [{ type: 'text', text: `Flashcards ${jobId} ended ${job.status}: ${reason}.` }],
    };
  }
  const result = job.result;
  const savedPath = await deps.context.files.writeOutput(
    `flashcards-${jobId}.json`,
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const wordCount = result.segments.reduce((sum, segment) => sum + segment.word_items.length, 0);
  const title = result.media?.title ?? job.media?.title ?? null;
  return {
    content: [
      {
        type: 'text',
        text: `Flashcards ${jobId} are ready: ${result.segments.length} segments, ${wordCount} words (${result.source_language} → ${result.target_language})${title ? ` from "${title}"` : ''}. Full result saved to ${savedPath}.`,
      },
      outputLink(savedPath, { mimeType: 'application/json', description: `Flashcards ${jobId}` }),
    ],
    structuredContent: {
      jobId,
      status: job.status,
      progress: 100,
      done: true,
      ...resumed,
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
