/**
 * create_flashcards: language-learning flashcards from a local video file (uploaded, streamed) or a
 * YouTube / public direct video URL.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type FlashcardOptions, LEARNING_DIRECTIONS } from '@polymodal/core';
import {
  createProgressReporter,
  createWaitSecondsSchema,
  PLATFORM_WORK_ANNOTATIONS,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { flashcardsOutcomeShape, waitForFlashcards } from './flashcards-result.js';
import { isRemoteReference, type MediaToolDeps, mediaToolError } from './media-tool-deps.js';

const DESCRIPTION = `Turns a video into language-learning flashcards: transcript segments in the source language with translations, word-by-word items (pronunciation, meaning) and optional clip URLs. video is a local file (MP4, MOV, MKV, WEBM, M4V, AVI, MPEG; up to 500 MB and 15 minutes; inside an allowed directory; uploaded) or a URL: a YouTube watch/Shorts/youtu.be link, or with sourceType=direct_video_url a public video file URL. Directions: ${LEARNING_DIRECTIONS.join(', ')}. Costs credits and counts against the key's daily video minutes. Repeating the same request continues the earlier job instead of paying again. Waits up to waitSeconds with progress; if not finished, returns done=false with a jobId — call get_flashcards. The full result is saved as JSON in the output directory.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const createFlashcardsInput = {
  video: z.string().min(1).describe('Local video path, YouTube URL or direct video URL.'),
  sourceType: z
    .enum(['youtube', 'direct_video_url'])
    .optional()
    .describe('For URLs: youtube (default) or direct_video_url.'),
  learningDirection: z.enum(LEARNING_DIRECTIONS),
  sourceLanguage: z.string().optional().describe('Must match the direction when given (e.g. th).'),
  targetLanguage: z.string().optional().describe('Must match the direction when given (e.g. zh).'),
  maxWordsPerSegment: z
    .number()
    .int()
    .min(1)
    .max(80)
    .optional()
    .describe('1–80 (default 15); lower = shorter clips.'),
  skipVocalSeparation: z.boolean().optional(),
  includeRenderedSegments: z.boolean().optional().describe('Clips with word-card overlays (default true).'),
  includeOriginalSegments: z.boolean().optional().describe('Raw cut clips (default true).'),
  newJob: z.boolean().default(false).describe('Start again even if the same request was made before.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export function registerCreateFlashcards(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'create_flashcards',
    {
      title: 'Create video flashcards',
      description: DESCRIPTION,
      inputSchema: createFlashcardsInput,
      outputSchema: flashcardsOutcomeShape,
      annotations: { title: 'Create video flashcards', ...PLATFORM_WORK_ANNOTATIONS },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
        const options: FlashcardOptions = {
          learning_direction: args.learningDirection,
          ...(args.sourceLanguage ? { source_language: args.sourceLanguage } : {}),
          ...(args.targetLanguage ? { target_language: args.targetLanguage } : {}),
          ...(args.maxWordsPerSegment === undefined
            ? {}
            : { max_words_per_segment: args.maxWordsPerSegment }),
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
        const client = deps.context.polymodal.flashcards;
        const reporter = createProgressReporter(extra);
        const started = isRemoteReference(args.video)
          ? await client.startFromUrl(
              args.video,
              { ...options, ...(args.sourceType ? { source_type: args.sourceType } : {}) },
              {
                signal: extra.signal,
                deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
                forceNew: args.newJob,
              },
            )
          : await client.startFromFile(args.video, options, {
              signal: extra.signal,
              deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
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
          jobId: started.jobId,
          waitSeconds: args.waitSeconds,
          extra,
          reporter,
          resumed: started.resumed,
          known: { status: started.status },
        });
      } catch (error) {
        return mediaToolError(error, deps);
      }
    },
  );
}
