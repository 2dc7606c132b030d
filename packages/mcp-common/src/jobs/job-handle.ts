/**
 * The fields every job answer carries (`respondWithJob` fills them), and the hint a handle gives when a job
 * outlives its wait: enough for an agent to keep waiting later (also after a restart: the job is in the
 * ledger).
 */
import { z } from 'zod';
import { MAX_WAIT_SECONDS } from './long-job-contract.js';

/** Fields every long-job result carries, done or not. */
export const jobStatusShape = {
  jobId: z
    .string()
    .describe(
      'Platform job id; pass it to the other tools (empty while a recording is still being uploaded).',
    ),
  status: z.string().describe('Current job state as reported by the platform.'),
  progress: z.number().describe('0..100'),
  done: z.boolean().describe('True once processing stopped (success, failure or cancellation).'),
  next: z.string().optional().describe('What to call next.'),
  outcome: z
    .enum(['succeeded', 'failed', 'cancelled'])
    .optional()
    .describe(
      'Once done: how the job ended. A failed or cancelled job is reported here, not as a tool error.',
    ),
  error: z.string().optional().describe("The platform's reason when the job failed."),
};

/** "call get_meeting with jobId=... (waitSeconds up to 50) to keep waiting" */
export function keepWaitingHint(toolName: string, jobId: string): string {
  return `call ${toolName} with jobId=${jobId} (waitSeconds up to ${MAX_WAIT_SECONDS}) to keep waiting`;
}
