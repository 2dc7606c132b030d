/**
 * Client of the reading score service. `score` answers with the result whether the service replies at
 * once (200) or queues the work (202 with `taskId` and `statusPath`, then polled with the same key until
 * `ready=true`). `submit` never waits (`submit-reading-score.ts`); a queued task is read with `retrieve`,
 * `poll` and `wait` (`reading-tasks.ts`).
 *
 * Requests go out with the canonical field names; callers holding form fields under any accepted alias
 * pass them as `formFields`, and `scoring_options` is sent as a JSON string (`reading-score-fields.ts`).
 * Choices where the spec is silent: the task route is polled every 2 s with a 10-minute default deadline;
 * a recording over 50 MiB is refused locally (the service's limit is not shown).
 */
import type { ReadingScoreResult, ReadingScoreTask } from '../contracts/reading-score.js';
import { startCall, waitTimeoutMs } from '../http/call-options.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import type { JobWaitOptions } from '../jobs/job-resource.js';
import type { ReadingScoreClient, ReadingScoreClientOptions } from './reading-score-types.js';
import { defineReadingTasks, READING_SCORE_WAIT_TIMEOUT_MS, type ReadingTasks } from './reading-tasks.js';
import { type ReadingScoreDeps, submitReadingScore } from './submit-reading-score.js';

export function createReadingScoreClient(options: ReadingScoreClientOptions): ReadingScoreClient {
  const { http } = options;
  const engine = options.engine ?? createJobEngine();
  const tasks = defineReadingTasks({ http, engine, pollIntervalMs: options.pollIntervalMs });
  const deps: ReadingScoreDeps = { http, engine, files: options.files, tasks };
  return {
    submit: (request) => submitReadingScore(deps, request),
    retrieve: tasks.retrieve,
    poll: tasks.poll,
    wait: (statusPathOrTaskId, call) => waitForScore(tasks, statusPathOrTaskId, call),
    score: (request) => scoreReading(deps, request),
  };
}

/** The score of a queued task, once it is ready (a failed task → JobFailedError). */
async function waitForScore(
  tasks: ReadingTasks,
  statusPathOrTaskId: string,
  call: JobWaitOptions<ReadingScoreTask> = {},
): Promise<ReadingScoreResult> {
  return (await tasks.wait(statusPathOrTaskId, call)).result as ReadingScoreResult;
}

async function scoreReading(
  deps: ReadingScoreDeps,
  scoreOptions: Parameters<ReadingScoreClient['score']>[0],
): Promise<ReadingScoreResult> {
  const request = startCall(scoreOptions);
  const submitted = await submitReadingScore(deps, request);
  if (submitted.kind === 'result') return submitted.result;
  return waitForScore(deps.tasks, submitted.statusPath, {
    ...(request.signal ? { signal: request.signal } : {}),
    maxRetries: request.maxRetries,
    timeoutMs: waitTimeoutMs(request, READING_SCORE_WAIT_TIMEOUT_MS),
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
  });
}
