/**
 * The toy word-count service's constants and its job's readings, without schemas: what its tools import
 * (in core, a service's `<service>-job.ts`, exported from `@polymodal/core/constants`). A platform service
 * keeps its ledger name, API path, poll interval and the tool that continues its jobs in core's service
 * table instead (`packages/core/src/services/service-table.ts`); the toy is no platform service.
 */
import { defineJobKind } from '@polymodal/core/jobs';
import type { WordCountJob } from './word-count-contract.js';

export const WORD_COUNT_SERVICE = 'word-count';
export const WORD_COUNT_API_PATH = '/api/word-count/v1';
export const WORD_COUNT_MAX_CHARACTERS = 100_000;
/** The tool that continues a wait on a job (a service table row's `waitTool`). */
export const GET_WORD_COUNT_TOOL = 'get_word_count';

// #region job-kind
export const WORD_COUNT_JOB = defineJobKind<WordCountJob>({
  isDone: (job) => job.status === 'done' || job.status === 'failed',
  status: (job) => job.status,
  progress: (job) => (job.status === 'done' ? 100 : job.progress),
  outcome: (job) => (job.status === 'done' ? 'succeeded' : job.status === 'failed' ? 'failed' : undefined),
  error: (job) => (job.status === 'failed' ? (job.error ?? 'no reason given') : null),
});

/** What every long-job answer shows of a word-count job. */
export const wordCountJobView = WORD_COUNT_JOB.view;
// #endregion
