/**
 * A queued reading score's readings (see job-view.ts): done once `ready`, failed when it says so or
 * came without a result, its error a string or an object shown as JSON. Apart from the client, so that a
 * server shows a task without it.
 */
import type { ReadingScoreTask } from '../contracts/reading-score.js';
import { defineJobKind } from './job-view.js';

const failed = (task: ReadingScoreTask) => task.ready && (task.successful === false || !task.result);

export const READING_SCORE_TASK = defineJobKind<ReadingScoreTask>({
  isDone: (task) => task.ready,
  status: (task) => task.state,
  progress: (task) => (task.ready ? 100 : 0),
  outcome: (task) => (!task.ready ? undefined : failed(task) ? 'failed' : 'succeeded'),
  error: (task) => {
    if (!failed(task)) return null;
    if (typeof task.error === 'string') return task.error;
    return task.error ? JSON.stringify(task.error) : 'no reason given';
  },
});

/** What the long-job answer needs to know of a queued reading score. */
export const readingTaskView = READING_SCORE_TASK.view;
