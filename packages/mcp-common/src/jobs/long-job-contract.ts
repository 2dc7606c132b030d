/**
 * The pieces of the long-job contract a tool declares and reports with: the `waitSeconds` argument
 * (0..50, because hosts cut a tool call off at about 60 s) and progress notifications that only ever
 * increase. The waiting itself is `respondWithJob`.
 */
import { z } from 'zod';
import type { ToolExtra } from '../protocol/sdk-types.js';

export type { ToolExtra };

/** The part of the SDK's request context that waiting needs (kept narrow so tests can fake it). */
export type WaitExtra = Pick<ToolExtra, 'signal' | 'sendNotification'> & { _meta?: ToolExtra['_meta'] };

export const MAX_WAIT_SECONDS = 50;
export const DEFAULT_WAIT_SECONDS = 40;

/**
 * A `waitSeconds` argument with the given default (0..50). No description: the name, the bounds and the
 * tool's own description ("if done=false, call …") say it, and it is repeated in every long-job tool.
 */
export function createWaitSecondsSchema(defaultSeconds: number = DEFAULT_WAIT_SECONDS) {
  return z.number().int().min(0).max(MAX_WAIT_SECONDS).default(defaultSeconds);
}

export const waitSecondsSchema = createWaitSecondsSchema(DEFAULT_WAIT_SECONDS);

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
