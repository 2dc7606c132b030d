/**
 * Queued reading-score tasks as a job resource: read at the `statusPath` the service returned (kept in the
 * ledger), never at a path rebuilt from the id when the service gave one; polled every 2 s.
 */
import {
  LEGACY_READING_SCORE_API_PATH,
  READING_SCORE_API_PATH,
  READING_SCORE_SERVICE,
} from '../constants/service-table.js';
import { ReadingScoreTask } from '../contracts/reading-score.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { requestOptionsOf } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import { defineJobResource, type JobLocation } from '../jobs/job-resource.js';
import { READING_SCORE_TASK } from '../views/reading-score-job.js';

export const READING_SCORE_WAIT_TIMEOUT_MS = 10 * 60 * 1000;

export type ReadingTasks = ReturnType<typeof defineReadingTasks>;

export function defineReadingTasks(options: {
  http: HttpClient;
  engine: JobEngine;
  pollIntervalMs: number | undefined;
}) {
  const { http, engine } = options;
  return defineJobResource<ReadingScoreTask>({
    service: READING_SCORE_SERVICE,
    kind: READING_SCORE_TASK,
    engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: READING_SCORE_WAIT_TIMEOUT_MS,
    locate: (statusPathOrTaskId) => locateTask(engine, statusPathOrTaskId),
    fetch: (path, call) =>
      http.request({
        method: 'GET',
        path,
        schema: ReadingScoreTask,
        idempotent: true,
        ...requestOptionsOf(call),
      }),
    // Ready but failed, or without a result → JobFailedError, named by the task's own id.
    failure: ({ successful, result, taskId, error }) =>
      successful === false || !result
        ? {
            jobId: taskId,
            errorMessage:
              typeof error === 'string' ? error : error === undefined ? null : JSON.stringify(error),
          }
        : undefined,
  });
}

/** The path to read a task at: the `statusPath` the service returned (kept in the ledger), else built. */
async function locateTask(engine: JobEngine, statusPathOrTaskId: string): Promise<JobLocation> {
  if (statusPathOrTaskId.startsWith('/')) {
    const checked = readingTaskPath(statusPathOrTaskId);
    return { id: checked.slice(checked.lastIndexOf('/') + 1), path: checked };
  }
  const entry = await engine.find(READING_SCORE_SERVICE, statusPathOrTaskId);
  const recorded = entry?.data?.statusPath;
  return {
    id: statusPathOrTaskId,
    path: typeof recorded === 'string' ? readingTaskPath(recorded) : readingTaskPath(statusPathOrTaskId),
  };
}

/** A status path of the service (checked), or the path of a task id; anything else is refused unsent. */
export function readingTaskPath(statusPathOrTaskId: string): string {
  if (statusPathOrTaskId.startsWith('/')) {
    const allowed = [READING_SCORE_API_PATH, LEGACY_READING_SCORE_API_PATH].some((base) =>
      statusPathOrTaskId.startsWith(`${base}/task/`),
    );
    if (!allowed || statusPathOrTaskId.includes('..')) {
      throw new ValidationError(`Not a reading-score status path: ${statusPathOrTaskId}`, [
        { path: 'statusPath', message: 'unexpected path' },
      ]);
    }
    return statusPathOrTaskId;
  }
  if (!/^[A-Za-z0-9_.:-]{1,200}$/.test(statusPathOrTaskId)) {
    throw new ValidationError(`Invalid reading-score task id: ${statusPathOrTaskId}`, [
      { path: 'taskId', message: 'invalid' },
    ]);
  }
  return `${READING_SCORE_API_PATH}/task/${statusPathOrTaskId}`;
}
