/**
 * The long-job contract shared by every Polymodal MCP server. Hosts cut a tool call off at about 60 s, so
 * a tool never blocks longer than `waitSeconds` (≤ 50): it polls, reports progress to clients that asked
 * for it, and hands back a job handle when the job outlives the wait. "Still running" is never an error.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { sleep } from '@polymodal/core';
import { z } from 'zod';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The part of the SDK's request context that waiting needs (kept narrow so tests can fake it). */
export type WaitExtra = Pick<ToolExtra, 'signal' | 'sendNotification'> & { _meta?: ToolExtra['_meta'] };

export const MAX_WAIT_SECONDS = 50;
export const DEFAULT_WAIT_SECONDS = 40;

const WAIT_DESCRIPTION =
  'How long this call may wait for the job, in seconds (0 to 50). Hosts cut tool calls off at about 60 s, so ' +
  'the wait is capped; if the job is still running afterwards the result says done=false with the jobId to ' +
  'keep waiting on. 0 returns at once.';

/** A `waitSeconds` argument with the given default (0..50). */
export function createWaitSecondsSchema(defaultSeconds: number = DEFAULT_WAIT_SECONDS) {
  return z.number().int().min(0).max(MAX_WAIT_SECONDS).default(defaultSeconds).describe(WAIT_DESCRIPTION);
}

export const waitSecondsSchema = createWaitSecondsSchema(DEFAULT_WAIT_SECONDS);

export interface JobDescription {
  status: string;
  /** 0..100 */
  progress?: number | undefined;
  message?: string | undefined;
}

export interface WaitForJobOptions<T> {
  extra: WaitExtra;
  waitSeconds: number;
  poll: (signal: AbortSignal) => Promise<T>;
  isDone: (job: T) => boolean;
  describe: (job: T) => JobDescription;
  intervalMs: number;
  /** Share one reporter with an earlier phase (e.g. an upload) so progress stays monotonic. */
  reporter?: ProgressReporter;
}

export interface WaitForJobResult<T> {
  done: boolean;
  job: T;
}

/**
 * Polls at once, then every `intervalMs`, until `isDone` or `waitSeconds` have elapsed. Sends
 * `notifications/progress` on each change when the client gave a progress token. The client's
 * cancellation (`extra.signal`) ends the wait at once by rethrowing the abort reason; the job itself keeps
 * running on the platform and stays recorded.
 */
export async function waitForJob<T>(options: WaitForJobOptions<T>): Promise<WaitForJobResult<T>> {
  const { extra } = options;
  const signal = extra.signal;
  const waitMs = Math.min(Math.max(options.waitSeconds, 0), MAX_WAIT_SECONDS) * 1000;
  const deadline = Date.now() + waitMs;
  const reporter = options.reporter ?? createProgressReporter(extra);

  for (;;) {
    signal.throwIfAborted();
    const job = await options.poll(signal);
    signal.throwIfAborted();
    const done = options.isDone(job);
    const description = options.describe(job);
    const progress = clampProgress(description.progress);
    await reporter.report(
      progress,
      description.message ?? formatProgressMessage(description.status, progress),
    );
    if (done) return { done: true, job };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { done: false, job };
    await sleep(Math.min(options.intervalMs, remaining), signal);
  }
}

export interface ProgressReporter {
  /** Whether the client asked for progress (gave a progress token). */
  readonly enabled: boolean;
  /** Sends `notifications/progress` (total 100) when `progress` (0..100) moved forward. */
  report(progress: number, message: string): Promise<void>;
}

/**
 * Progress for one tool call. The MCP spec wants progress to increase with every notification, so
 * unchanged or receding values (e.g. a state change at the same percentage) are skipped rather than sent
 * out of order. Without a progress token it does nothing.
 */
export function createProgressReporter(extra: WaitExtra): ProgressReporter {
  const progressToken = extra._meta?.progressToken;
  let last = -1;
  return {
    enabled: progressToken !== undefined,
    async report(progress, message) {
      if (progressToken === undefined || !(progress > last)) return;
      last = progress;
      try {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message },
        });
      } catch {
        // A lost progress notification must not fail the tool call.
      }
    },
  };
}

/** "TRANSCRIBING 45%" */
export function formatProgressMessage(status: string, progress: number): string {
  return `${status} ${Math.round(progress)}%`;
}

function clampProgress(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}
