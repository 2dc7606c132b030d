/**
 * score_reading: scores a student's Thai reading against reference text or a reference recording. Most
 * answers come at once; a long recording is queued and waited for within the long-job contract. The
 * identical request again (same recordings and fields) returns the recorded score or joins the queued
 * task instead of being scored and paid for again; newJob=true scores anew.
 */
import type { ReadingScoreTask } from '@polymodal/core';
import { READING_SCORE_MAX_UPLOAD_BYTES } from '@polymodal/core/constants';
import { ValidationError } from '@polymodal/core/errors';
import { readingTaskView } from '@polymodal/core/views';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  jobOutputSchema,
  PLATFORM_WORK_ANNOTATIONS,
  type PresentedJob,
  resolveToolInputs,
  respondWithJob,
  toolErrorFor,
  type WaitExtra,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { READING_SCORE_VIEW } from '../views/reading-score-view.js';
import { readingOutcome, readingSummary } from './reading-result.js';

const DESCRIPTION = `Scores a student's Thai reading (studentAudioPath) against referenceText or a reference recording (exactly one): scores, word-by-word comparison, words to practise. Usually seconds; if queued and done=false: get_reading_score. Files: local paths (allowed dirs) or https URLs.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const scoreReadingInput = {
  studentAudioPath: z.string().min(1),
  referenceText: z.string().min(1).optional(),
  referenceAudioPath: z.string().min(1).optional(),
  engine: z.enum(['engine_t', 'engine_w']).optional().describe('Default engine_t.'),
  studentId: z.string().min(1).optional(),
  lessonId: z.string().min(1).optional(),
  includePronunciation: z.boolean().optional().describe('Default true.'),
  waitSeconds: createWaitSecondsSchema(40),
  newJob: z.boolean().default(false).describe('Score again (paid again).'),
};

export const scoreReadingTool = defineTool({
  name: 'score_reading',
  title: 'Score a Thai reading',
  description: DESCRIPTION,
  inputSchema: scoreReadingInput,
  outputSchema: jobOutputSchema,
  asTask: true,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  view: READING_SCORE_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    const inputs = resolveToolInputs(deps, deadline.signal);
    try {
      await deps.roots.ready();
      if ((args.referenceText === undefined) === (args.referenceAudioPath === undefined)) {
        throw new ValidationError(
          'Give either referenceText or referenceAudioPath (exactly one). Nothing was sent.',
        );
      }
      const limit = { maxBytes: READING_SCORE_MAX_UPLOAD_BYTES };
      const studentAudio = await inputs.resolve(args.studentAudioPath, {
        field: 'studentAudioPath',
        ...limit,
      });
      const referenceAudio = args.referenceAudioPath
        ? await inputs.resolve(args.referenceAudioPath, { field: 'referenceAudioPath', ...limit })
        : undefined;
      const submitted = await deps.platform.client.readingScore.submit({
        studentAudio,
        ...(args.referenceText ? { referenceText: args.referenceText } : {}),
        ...(referenceAudio ? { referenceAudio } : {}),
        ...(args.engine ? { engine: args.engine } : {}),
        ...(args.studentId ? { studentId: args.studentId } : {}),
        ...(args.lessonId ? { lessonId: args.lessonId } : {}),
        ...(args.includePronunciation === undefined
          ? {}
          : { includePronunciation: args.includePronunciation }),
        forceNew: args.newJob,
        signal: extra.signal,
        deadline: deadline.at,
      });
      const note = submitted.resumed
        ? 'These recordings were scored before: this is the recorded score (no new charge).'
        : submitted.joined
          ? 'Joined the identical request already in progress (no new charge).'
          : undefined;
      if (submitted.kind === 'result') {
        return {
          content: [
            {
              type: 'text' as const,
              text: [note, readingSummary(submitted.result)].filter(Boolean).join(' '),
            },
          ],
          structuredContent: {
            jobId: 'immediate',
            status: 'SUCCESS',
            progress: 100,
            done: true,
            outcome: 'succeeded',
            next: 'nothing further is needed',
            resumed: submitted.resumed,
            ...readingOutcome(submitted.result),
          },
        };
      }
      return await waitForTask(deps, submitted.taskId, args.waitSeconds, extra, deadline.at, note);
    } catch (error) {
      return toolErrorFor(inputs.explain(error), deps);
    } finally {
      deadline.dispose();
      await inputs.release();
    }
  },
});

function presentTask(task: ReadingScoreTask, done: boolean): PresentedJob {
  if (!done) return { text: `Reading score ${task.taskId} is still ${task.state}.` };
  if (task.successful === false || !task.result) {
    const reason = readingTaskView(task).error;
    return {
      text: `Reading score ${task.taskId} failed: ${reason}.`,
      next: 'check the recordings (a Thai reading, audible, not empty) and call score_reading again with newJob=true',
    };
  }
  return {
    text: readingSummary(task.result),
    structured: readingOutcome(task.result),
    next: 'nothing further is needed',
  };
}

/** Shared by score_reading and get_reading_score. */
export async function waitForTask(
  deps: ToolDeps,
  taskId: string,
  waitSeconds: number,
  extra: WaitExtra,
  deadline: number,
  lead?: string,
) {
  return respondWithJob<ReadingScoreTask>({
    extra,
    jobId: taskId,
    waitSeconds,
    deadline,
    poll: (request) => deps.platform.client.readingScore.poll(taskId, request),
    view: readingTaskView,
    waitTool: 'get_reading_score',
    present: presentTask,
    lead,
  });
}
