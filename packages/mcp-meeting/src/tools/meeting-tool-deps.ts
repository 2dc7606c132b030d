/**
 * What every meeting tool receives, and the few helpers they share: reading a job (through the job
 * engine, so reads stay 5 s apart and are recorded by core), viewing it for the long-job answer, and error
 * results with the facts that make them actionable (cost on 402, state on 409, limits on 413).
 */

import type { MeetingJob } from '@polymodal/core';
import { isMeetingTerminal, MEETING_MAX_DURATION_SECONDS, meetingCost } from '@polymodal/core/constants';
import { ApiError, TimeoutError } from '@polymodal/core/errors';
import { inspectRecording } from '@polymodal/core/media';
import type { CallToolResult } from '@polymodal/mcp-common';
import { type ToolDeps, type ToolErrorHints, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';

/** How long the facts of an error message (a price, a state, a limit) may take to gather. */
const HINT_DEADLINE_MS = 5_000;

export const jobIdSchema = z.string().min(1).describe('Meeting job id.');

/**
 * The job as it is now, for a tool that needs it once: a read less than 5 s old is reused, otherwise one
 * read, which may first wait out the rest of the spec's 5 s (within the call's deadline).
 */
export async function readJob(deps: ToolDeps, jobId: string, signal: AbortSignal): Promise<MeetingJob> {
  const now = Date.now();
  const outcome = await deps.platform.client.meeting.poll(jobId, {
    deadline: now,
    firstReadDeadline: now + deps.toolDeadlineSeconds * 1000,
    signal,
  });
  if (outcome.value) return outcome.value;
  throw (
    outcome.lastError ??
    new TimeoutError(
      `Meeting job ${jobId} could not be read within this call: the platform asked to wait before the next ` +
        'read. Try again in a few seconds.',
      0,
      { deadlineReached: true },
    )
  );
}

/** What the long-job answer needs to know of a meeting job (core's, beside the job's declaration). */
export { meetingJobView } from '@polymodal/core/views';

export function isDone(job: MeetingJob): boolean {
  return isMeetingTerminal(job.status);
}

export interface ErrorFacts {
  jobId?: string | undefined;
  /** Local recording the call was about (to price it on 402). */
  path?: string | undefined;
  next?: string | undefined;
}

/** toolError with hints gathered only for the statuses that name them. */
export async function meetingToolError(
  error: unknown,
  deps: ToolDeps,
  facts: ErrorFacts = {},
): Promise<CallToolResult> {
  const hints: ToolErrorHints = { jobId: facts.jobId, next: facts.next };
  if (ApiError.isInstance(error)) {
    // Hints are a courtesy: a few seconds at most, one attempt, and a job read at most once per interval.
    const hintDeadline = Date.now() + HINT_DEADLINE_MS;
    try {
      if (error.status === 409 && facts.jobId) {
        const now = Date.now();
        const outcome = await deps.platform.client.meeting.poll(facts.jobId, {
          deadline: now,
          firstReadDeadline: hintDeadline,
        });
        hints.jobState = outcome.value?.status;
      } else if (error.status === 402 && facts.path) {
        hints.credits = await priceRecording(deps, facts.path, hintDeadline);
      } else if (error.status === 413) {
        hints.limit = await describeLimits(deps, hintDeadline);
      }
    } catch {
      // Hints are a courtesy: the error itself is what must reach the agent.
    }
  }
  deps.platform.log.warning('tool call failed', {
    error: error instanceof Error ? error.message : String(error),
  });
  return toolErrorFor(error, deps, hints);
}

/** What the recording costs under the platform's rule (undefined when its duration cannot be read). */
export async function priceRecording(
  deps: ToolDeps,
  path: string,
  deadline?: number,
): Promise<number | undefined> {
  const realPath = await deps.platform.files.resolveReadable(path);
  const recording = await inspectRecording(realPath);
  if (recording.durationSeconds === undefined) return undefined;
  const list = await deps.platform.client.meeting.list({ deadline, maxRetries: 0 });
  return meetingCost(recording.durationSeconds, minimumCredits(list.pricing) ?? 0);
}

export function minimumCredits(pricing: unknown): number | undefined {
  if (typeof pricing !== 'object' || pricing === null) return undefined;
  const value = (pricing as Record<string, unknown>).minimumCredits;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

async function describeLimits(deps: ToolDeps, deadline: number): Promise<string> {
  const hours = MEETING_MAX_DURATION_SECONDS / 3600;
  const list = await deps.platform.client.meeting.list({ deadline, maxRetries: 0 });
  return typeof list.maxUploadBytes === 'number'
    ? `${hours} hours of recording, ${formatBytes(list.maxUploadBytes)} per upload`
    : `${hours} hours of recording`;
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value >= 10 ? 0 : 1)} ${units[unit]}`;
}

export { READ_ONLY_ANNOTATIONS as ANNOTATIONS_READ_ONLY } from '@polymodal/mcp-common';
