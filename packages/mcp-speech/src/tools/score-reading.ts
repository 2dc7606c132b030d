/**
 * score_reading: scores a student's Thai reading against reference text or a reference recording. Most
 * answers come at once; a long recording is queued and waited for within the long-job contract.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { READING_SCORE_SERVICE, type ReadingScoreTask, ValidationError } from '@polymodal/core';
import {
  createJobHandle,
  createWaitSecondsSchema,
  jobStatusShape,
  PLATFORM_WORK_ANNOTATIONS,
  waitForJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { readingOutcome, readingOutcomeShape, readingSummary } from './reading-result.js';
import { type SpeechToolDeps, speechToolError } from './speech-tool-deps.js';

const DESCRIPTION = `Scores a student's Thai reading: compares the recording (studentAudioPath) with what should have been read (referenceText, or a teacher's recording at referenceAudioPath — exactly one), picks the best attempt if the student repeated, and returns scores (displayed as 80 + raw × 0.2; 0 when no speech is heard), a word-by-word comparison (correct, missing, extra, substitution) and the words to practise. Thai only. Usually answers within seconds; a long recording is queued: then this waits up to waitSeconds and, if still running, returns done=false with a jobId — call get_reading_score with it. Files must be inside an allowed directory (POLYMODAL_ALLOWED_DIRS or the client's roots).`;

export function registerScoreReading(server: McpServer, deps: SpeechToolDeps): void {
  server.registerTool(
    'score_reading',
    {
      title: 'Score a Thai reading',
      description: DESCRIPTION,
      inputSchema: {
        studentAudioPath: z.string().min(1).describe('Local path of the student recording.'),
        referenceText: z.string().min(1).optional().describe('The Thai text the student read.'),
        referenceAudioPath: z
          .string()
          .min(1)
          .optional()
          .describe('Local path of a reference reading, instead of referenceText.'),
        engine: z
          .enum(['engine_t', 'engine_w'])
          .optional()
          .describe('Recognition engine (default engine_t).'),
        studentId: z.string().min(1).optional().describe('Echoed back in the result.'),
        lessonId: z.string().min(1).optional().describe('Echoed back in the result.'),
        includePronunciation: z.boolean().optional().describe('Score pronunciation too (default true).'),
        waitSeconds: createWaitSecondsSchema(40),
      },
      outputSchema: { ...jobStatusShape, ...readingOutcomeShape },
      annotations: {
        title: 'Score a Thai reading',
        ...PLATFORM_WORK_ANNOTATIONS,
      },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
        if ((args.referenceText === undefined) === (args.referenceAudioPath === undefined)) {
          throw new ValidationError(
            'Give either referenceText or referenceAudioPath (exactly one). Nothing was sent.',
          );
        }
        const submitted = await deps.context.polymodal.readingScore.submit({
          studentAudio: args.studentAudioPath,
          ...(args.referenceText ? { referenceText: args.referenceText } : {}),
          ...(args.referenceAudioPath ? { referenceAudio: args.referenceAudioPath } : {}),
          ...(args.engine ? { engine: args.engine } : {}),
          ...(args.studentId ? { studentId: args.studentId } : {}),
          ...(args.lessonId ? { lessonId: args.lessonId } : {}),
          ...(args.includePronunciation === undefined
            ? {}
            : { includePronunciation: args.includePronunciation }),
          signal: extra.signal,
        });
        if (submitted.kind === 'result') {
          return finished('immediate', submitted.result);
        }
        // Recorded before waiting, so list_jobs shows it if this call is cut off.
        await deps.context.ledger
          .record({
            service: READING_SCORE_SERVICE,
            fingerprint: submitted.statusPath,
            id: submitted.taskId,
            lastStatus: 'PENDING',
          })
          .catch(() => undefined);
        return await waitForTask(deps, submitted.taskId, args.waitSeconds, extra);
      } catch (error) {
        return speechToolError(error, deps);
      }
    },
  );
}

function finished(jobId: string, result: Parameters<typeof readingOutcome>[0]) {
  return {
    content: [{ type: 'text' as const, text: readingSummary(result) }],
    structuredContent: { jobId, status: 'SUCCESS', progress: 100, done: true, ...readingOutcome(result) },
  };
}

/** Shared by score_reading and get_reading_score. */
export async function waitForTask(
  deps: SpeechToolDeps,
  taskId: string,
  waitSeconds: number,
  extra: Parameters<typeof waitForJob>[0]['extra'],
) {
  const { done, job } = await waitForJob<ReadingScoreTask>({
    extra,
    waitSeconds,
    intervalMs: deps.pollIntervalMs,
    poll: (signal) => deps.context.polymodal.readingScore.task(taskId, { signal }),
    isDone: (task) => task.ready,
    describe: (task) => ({ status: task.state, progress: task.ready ? 100 : 0 }),
  });
  await deps.context.ledger
    .updateById(READING_SCORE_SERVICE, taskId, { lastStatus: job.state })
    .catch(() => undefined);
  if (!done) {
    const handle = createJobHandle({
      jobId: taskId,
      status: job.state,
      progress: 0,
      waitTool: 'get_reading_score',
    });
    return {
      content: [
        { type: 'text' as const, text: `Reading score ${taskId} is still ${job.state}. ${handle.next}` },
      ],
      structuredContent: { ...handle },
    };
  }
  if (job.successful === false || !job.result) {
    const reason =
      typeof job.error === 'string' ? job.error : job.error ? JSON.stringify(job.error) : 'no reason given';
    return {
      isError: true,
      content: [
        {
          type: 'text' as const,
          text: `Reading score ${taskId} failed: ${reason}. Check the recordings and score again.`,
        },
      ],
    };
  }
  return finished(taskId, job.result);
}
