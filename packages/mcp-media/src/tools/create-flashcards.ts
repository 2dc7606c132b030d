/**
 * create_flashcards: language-learning flashcards from a local video file (uploaded, streamed) or a
 * YouTube / public direct video URL.
 */
import type { FlashcardOptions } from '@polymodal/core';
import { LEARNING_DIRECTIONS } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createProgressReporter,
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { FLASHCARD_DECK_VIEW } from '../views/flashcard-deck-view.js';
import { flashcardsOutcomeShape, waitForFlashcards } from './flashcards-result.js';
import { isRemoteReference } from './media-tool-deps.js';

const DESCRIPTION = `Turns a video (local up to 500 MB/15 min, YouTube or URL) into language flashcards. Costs credits and daily video minutes; the same request continues free. If done=false: get_flashcards.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const createFlashcardsInput = {
  video: z.string().min(1),
  sourceType: z.enum(['youtube', 'direct_video_url']).optional().describe('Default youtube.'),
  learningDirection: z.enum(LEARNING_DIRECTIONS),
  sourceLanguage: z.string().optional(),
  targetLanguage: z.string().optional(),
  maxWordsPerSegment: z.number().int().min(1).max(80).optional().describe('Default 15.'),
  skipVocalSeparation: z.boolean().optional(),
  includeRenderedSegments: z.boolean().optional(),
  includeOriginalSegments: z.boolean().optional(),
  newJob: z.boolean().default(false).describe('Pay again for a new job.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export const createFlashcardsTool = defineTool({
  name: 'create_flashcards',
  title: 'Create video flashcards',
  description: DESCRIPTION,
  inputSchema: createFlashcardsInput,
  outputSchema: flashcardsOutcomeShape,
  asTask: true,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  view: FLASHCARD_DECK_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    // One deadline for the whole call: the start and the wait after it.
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    try {
      await deps.roots.ready();
      const options: FlashcardOptions = {
        learning_direction: args.learningDirection,
        ...(args.sourceLanguage ? { source_language: args.sourceLanguage } : {}),
        ...(args.targetLanguage ? { target_language: args.targetLanguage } : {}),
        ...(args.maxWordsPerSegment === undefined ? {} : { max_words_per_segment: args.maxWordsPerSegment }),
        ...(args.skipVocalSeparation === undefined
          ? {}
          : { skip_vocal_separation: args.skipVocalSeparation }),
        ...(args.includeRenderedSegments === undefined
          ? {}
          : { include_rendered_segments: args.includeRenderedSegments }),
        ...(args.includeOriginalSegments === undefined
          ? {}
          : { include_original_segments: args.includeOriginalSegments }),
      };
      const client = deps.platform.client.flashcards;
      const reporter = createProgressReporter(extra);
      const started = isRemoteReference(args.video)
        ? await client.startFromUrl(
            args.video,
            { ...options, ...(args.sourceType ? { source_type: args.sourceType } : {}) },
            {
              signal: extra.signal,
              deadline: deadline.at,
              forceNew: args.newJob,
            },
          )
        : await client.startFromFile(args.video, options, {
            signal: extra.signal,
            deadline: deadline.at,
            forceNew: args.newJob,
            // The upload is reported as the first percent of the job.
            onUploadProgress: (sent, total) => {
              void reporter.report(
                total > 0 ? (sent / total) * 1 : 0,
                `uploading ${Math.round((sent / Math.max(total, 1)) * 100)}%`,
              );
            },
          });
      return await waitForFlashcards(deps, {
        deadline,
        jobId: started.jobId,
        waitSeconds: args.waitSeconds,
        extra,
        reporter,
        resumed: started.resumed,
        known: { status: started.status },
      });
    } catch (error) {
      return toolErrorFor(error, deps);
    } finally {
      deadline.dispose();
    }
  },
});
