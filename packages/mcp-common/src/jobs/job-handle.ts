/**
 * The fields every job answer carries (`respondWithJob` fills them), and the hint a handle gives when a job
 * outlives its wait: enough for an agent to keep waiting later (also after a restart: the job is in the
 * ledger).
 */
import { z } from 'zod';
import { MAX_WAIT_SECONDS } from './long-job-contract.js';

/**
 * Fields every long-job result carries, done or not. No descriptions: the names say it, and every tool's
 * description says what `next` and `done=false` mean; each byte here is repeated in every tools/list.
 */
export const jobStatusShape = {
  done: z.boolean(),
  jobId: z.string(),
  status: z.string(),
  progress: z.number(),
  next: z.string().optional(),
  outcome: z.enum(['succeeded', 'failed', 'cancelled']).optional(),
  error: z.string().optional(),
  resumed: z.boolean().optional(),
};

/**
 * The one output schema of the long-job tools (issue 14): the common core, with further properties
 * allowed, because each tool adds its own fields (a summary, a saved file, scores) to the structured
 * result. Built once per process, so every tool and every server instance hands the SDK the same object.
 */
export const jobOutputSchema = z.looseObject(jobStatusShape);

/** "call get_meeting with jobId=... (waitSeconds up to 50) to keep waiting" */
export function keepWaitingHint(toolName: string, jobId: string): string {
  return `call ${toolName} with jobId=${jobId} (waitSeconds up to ${MAX_WAIT_SECONDS}) to keep waiting`;
}
