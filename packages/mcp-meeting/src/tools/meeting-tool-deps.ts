/**
 * What every meeting tool receives, and the few helpers they share: reading a job (keeping the local
 * ledger's last status current), describing its progress, and error results with the facts that make
 * them actionable (cost on 402, state on 409, limits on 413).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ApiError,
  inspectRecording,
  isMeetingTerminal,
  MEETING_MAX_DURATION_SECONDS,
  MEETING_SERVICE,
  type MeetingJob,
  meetingCost,
} from '@polymodal/core';
import {
  type JobDescription,
  type RootsSync,
  type ServerContext,
  type ToolErrorHints,
  toolError,
} from '@polymodal/mcp-common';
import { z } from 'zod';

export interface MeetingToolDeps {
  context: ServerContext;
  /** Pause between polls while a tool waits (5 s in production, per the spec's polling rule). */
  pollIntervalMs: number;
  roots: RootsSync;
}

export const jobIdSchema = z
  .string()
  .min(1)
  .describe('Meeting job id, as returned by summarize_meeting, list_meetings or list_jobs.');

export async function retrieveJob(
  deps: MeetingToolDeps,
  jobId: string,
  signal?: AbortSignal,
): Promise<MeetingJob> {
  const job = await deps.context.polymodal.meeting.retrieve(jobId, { signal });
  await recordStatus(deps, job);
  return job;
}

/** Keeps list_jobs' "last seen" status current; a ledger hiccup must not fail the tool. */
export async function recordStatus(deps: MeetingToolDeps, job: MeetingJob): Promise<void> {
  try {
    await deps.context.ledger.updateById(MEETING_SERVICE, job.id, {
      lastStatus: job.status,
      ...(job.title ? { title: job.title } : {}),
    });
  } catch (error) {
    deps.context.log.debug('could not update the job ledger', { error: String(error) });
  }
}

export function describeJob(job: MeetingJob): JobDescription {
  return { status: job.status, progress: job.progress };
}

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
  deps: MeetingToolDeps,
  facts: ErrorFacts = {},
): Promise<CallToolResult> {
  const hints: ToolErrorHints = { jobId: facts.jobId, next: facts.next };
  if (ApiError.isInstance(error)) {
    try {
      if (error.status === 409 && facts.jobId) {
        hints.jobState = (await deps.context.polymodal.meeting.retrieve(facts.jobId)).status;
      } else if (error.status === 402 && facts.path) {
        hints.credits = await priceRecording(deps, facts.path);
      } else if (error.status === 413) {
        hints.limit = await describeLimits(deps);
      }
    } catch {
      // Hints are a courtesy: the error itself is what must reach the agent.
    }
  }
  deps.context.log.warning('tool call failed', {
    error: error instanceof Error ? error.message : String(error),
  });
  return toolError(error, { secrets: deps.context.secrets, hints });
}

/** What the recording costs under the platform's rule (undefined when its duration cannot be read). */
export async function priceRecording(deps: MeetingToolDeps, path: string): Promise<number | undefined> {
  const realPath = await deps.context.files.resolveReadable(path);
  const recording = await inspectRecording(realPath);
  if (recording.durationSeconds === undefined) return undefined;
  const list = await deps.context.polymodal.meeting.list();
  return meetingCost(recording.durationSeconds, minimumCredits(list.pricing) ?? 0);
}

export function minimumCredits(pricing: unknown): number | undefined {
  if (typeof pricing !== 'object' || pricing === null) return undefined;
  const value = (pricing as Record<string, unknown>).minimumCredits;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

async function describeLimits(deps: MeetingToolDeps): Promise<string> {
  const hours = MEETING_MAX_DURATION_SECONDS / 3600;
  const list = await deps.context.polymodal.meeting.list();
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
