/**
 * A ledger job as a task of the Tasks extension: its state is what the job's `get_*` tool answers, read the
 * way that tool reads it (through the job engine: one read at a time per job, the platform's Retry-After, the
 * tenant's ledger and budget), so that a task and a tool call never disagree.
 *
 * - still running (`done: false`): `working`, the tool's first line as the status message;
 * - done: `completed` with exactly the tool's result, whatever its outcome. A job the platform failed is a
 *   completed task whose result says so (`outcome: "failed"` and the platform's reason, as `get_*` answers):
 *   the extension keeps `failed` for a JSON-RPC error and MUST NOT use it otherwise;
 * - cancelled (`outcome: "cancelled"`): `cancelled`;
 * - the read itself failed: a refusal that says what the job is (unknown to the platform, not the caller's)
 *   is the tool's answer, so `completed` with it; any other failure (the platform unreachable, busy, slow,
 *   the server's own trouble) leaves the task `working`, saying what happened, for the next read.
 *
 * `ttlMs` is null: the ledger keeps a job for good, and the platform's retention of results is not shown in
 * its contracts, so no expiry is promised. `pollIntervalMs` is the least time between two reads of the job
 * (the service's interval, or the largest Retry-After the platform gave the job if longer).
 */
import type { LedgerEntry } from '@polymodal/core/ledger';
import { TOOL_ERROR_META_KEY } from '../errors/tool-error.js';
import type { CallToolResult } from '../protocol/sdk-types.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The fields of every task answer (`Task` of the extension's schema). */
export interface TaskFields {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
}

/** A task as `tasks/get` answers it: with the tool's result once completed. */
export interface TaskState extends TaskFields {
  result?: CallToolResult & { resultType: 'complete' };
}

/** The job behind a task, and how often it may be read. */
export interface TaskedJob {
  entry: LedgerEntry;
  /** The least time between two reads of this job's service. */
  readIntervalMs: number;
}

/**
 * Error kinds of a read that say what the job is (or that the caller may not see it): the answer, so the task
 * ends with it. Any other failure of a read (the platform unreachable, slow, busy or down, an answer that could
 * not be read, the server's own trouble such as a ledger busy under load) says nothing about the job, so the
 * task stays working and the next read tries again.
 */
const FINAL_ERROR_KINDS = new Set(['validation', 'config', 'job-failed', 'budget']);

/** The task of `job`, from the answer its `get_*` tool gave (or the call that started it) just now. */
export function taskOf(job: TaskedJob, result: CallToolResult, now: Date = new Date()): TaskState {
  const fields = (status: TaskStatus): TaskFields => ({
    taskId: job.entry.id as string,
    status,
    ...(firstLine(result) ? { statusMessage: firstLine(result) } : {}),
    createdAt: job.entry.createdAt,
    lastUpdatedAt: now.toISOString(),
    ttlMs: null,
    pollIntervalMs: Math.max(job.readIntervalMs, job.entry.retryAfterFloorMs ?? 0),
  });
  if (result.isError) {
    return isPassingTrouble(result)
      ? fields('working')
      : { ...fields('completed'), result: complete(result) };
  }
  const structured = result.structuredContent as { done?: unknown; outcome?: unknown } | undefined;
  if (structured?.done === false) return fields('working');
  if (structured?.outcome === 'cancelled') return fields('cancelled');
  return { ...fields('completed'), result: complete(result) };
}

/** Whether a tool's answer is a job still running: the answer a task replaces. */
export function isRunningJob(result: CallToolResult): boolean {
  const structured = result.structuredContent as { done?: unknown; jobId?: unknown } | undefined;
  return !result.isError && structured?.done === false && typeof structured.jobId === 'string';
}

function isPassingTrouble(result: CallToolResult): boolean {
  const info = result._meta?.[TOOL_ERROR_META_KEY] as { kind?: unknown; status?: unknown } | undefined;
  if (info?.kind === 'api') {
    // The platform's refusal of this job (4xx: unknown, not allowed) is final; busy (429), a request that
    // timed out (408) or the platform down (5xx) pass.
    const status = typeof info.status === 'number' ? info.status : 500;
    return status === 408 || status === 429 || status >= 500;
  }
  return !(typeof info?.kind === 'string' && FINAL_ERROR_KINDS.has(info.kind));
}

/** The embedded result as the extension's clients expect it: a complete result of the original request. */
function complete(result: CallToolResult): CallToolResult & { resultType: 'complete' } {
  return { ...result, resultType: 'complete' };
}

function firstLine(result: CallToolResult): string | undefined {
  const text = result.content.find((item) => item.type === 'text');
  const line = text?.type === 'text' ? text.text.split('\n')[0]?.trim() : undefined;
  return line === '' ? undefined : line;
}
