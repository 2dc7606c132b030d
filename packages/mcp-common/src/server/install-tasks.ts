/**
 * The installer's tasks (see `sdk-server.ts` and `tasks/tasks-extension.ts`): the Tasks extension answered
 * from the job ledger. SDK 2.4 has no server side of the extension, so its three methods are answered here
 * through the SDK's public explicit-schema `setRequestHandler`, the one place the SDK's own extension can
 * replace later:
 * - `tasks/get` finds the job in the caller's ledger (another tenant's id is as unknown as a made-up one,
 *   refused before any platform request) and reads it with its `get_*` tool (`job-task.ts` maps the answer);
 * - `tasks/cancel` cancels on the platform where the service can (a meeting, with `cancel_meeting`), and
 *   otherwise notes the request in the job's entry: nothing paid is stopped, and the task's status message
 *   says so from then on, in every process that reads the entry;
 * - `tasks/update` acknowledges: no task of ours waits for input (a tool asks its questions before the job
 *   starts, within the call), so any answer is to a request that is not outstanding and is ignored, as the
 *   extension says.
 * A tool call answers with a task (`answerAsTask`) only when the tool starts or continues a paid job
 * (`asTask`), the request declared the extension, and the job is still running after a short first wait.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { JobLedger, LedgerEntry } from '@polymodal/core/ledger';
import { z } from 'zod';
import type { PlatformContext } from '../context/create-platform-context.js';
import { ALL_JOB_SERVICES, type JobService } from '../jobs/job-services.js';
import type { CallToolResult } from '../protocol/sdk-types.js';
import { isRunningJob, type TaskFields, taskOf } from '../tasks/job-task.js';
import {
  assertTasksDeclared,
  declaresTasks,
  TASKS_EXTENSION,
  taskNotFound,
} from '../tasks/tasks-extension.js';
import type { BoundTool } from '../tools/define-tool.js';

export interface TaskInstallation {
  /** The tools this server instance offers, by name. */
  tools: ReadonlyMap<string, BoundTool>;
  /** Runs a tool as a call would (the platform client loaded, saved outputs linked), without counting it. */
  run(tool: BoundTool, args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult>;
  /** The server instance's platform context (the tenant's, over HTTP): its ledger and read intervals. */
  platform: () => Pick<PlatformContext, 'ledger' | 'jobReadIntervalMs'>;
}

/** What a tool call needs of the tasks: turning a running job's answer into a task. */
export interface TaskAnswers {
  answerAsTask(ctx: ServerContext, result: CallToolResult): Promise<CallToolResult>;
}

/**
 * A task as a tool call's answer. The SDK gives every tool answer a `content` list, a task's too (empty),
 * so it is written here as it goes on the wire.
 */
export type TaskAnswer = TaskFields & { resultType: 'task'; content: [] };

/** A job of the ledger that this server's tools follow. */
interface FoundJob {
  job: JobService;
  entry: LedgerEntry;
}

/**
 * The note a cancelled task leaves in its job's entry, where the platform cannot stop the job: when, and
 * which job. An entry keeps its `data` when a new job of the same request takes it over (a new variation),
 * and that job's task was never cancelled.
 */
const CANCEL_NOTE = 'taskCancelRequested';

interface CancelNote {
  jobId: string;
  at: string;
}

const TASK_PARAMS = z.object({ taskId: z.string().min(1) });

/**
 * Declares the extension and answers its methods, when a tool of this server follows a job; returns how a
 * tool call answers with a task, or undefined when the server has no such tool.
 */
export function installTasks(server: McpServer, installation: TaskInstallation): TaskAnswers | undefined {
  const followed = ALL_JOB_SERVICES.filter((job) => installation.tools.has(job.waitTool));
  if (followed.length === 0) return undefined;
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  const ledger = () => installation.platform().ledger;
  const taskOfJob = (found: FoundJob, entry: LedgerEntry, result: CallToolResult) =>
    withCancelNote(
      taskOf({ entry, readIntervalMs: installation.platform().jobReadIntervalMs(found.job.service) }, result),
      entry,
    );
  const find = async (taskId: string): Promise<FoundJob | undefined> => {
    for (const job of followed) {
      const entry = await ledger().findById(job.service, taskId);
      if (entry?.id === taskId) return { job, entry };
    }
    return undefined;
  };
  const read = async (found: FoundJob, ctx: ServerContext) => {
    const tool = installation.tools.get(found.job.waitTool) as BoundTool;
    const result = await installation.run(tool, { jobId: found.entry.id, waitSeconds: 0 }, ctx);
    // The entry as the read left it (its Retry-After floor, a cancel noted meanwhile).
    const entry = (await ledger().findById(found.job.service, found.entry.id as string)) ?? found.entry;
    return taskOfJob(found, entry, result);
  };
  server.server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    assertTasksDeclared(ctx, 'tasks/get');
    const found = await find(taskId);
    if (!found) throw taskNotFound();
    return { ...(await read(found, ctx)) };
  });
  server.server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    assertTasksDeclared(ctx, 'tasks/cancel');
    const found = await find(taskId);
    if (!found) throw taskNotFound();
    const { cancelTool } = found.job;
    if (cancelTool === undefined) {
      await noteCancelRequest(ledger(), found);
      return {};
    }
    // A job that already stopped answers the cancel with an error (409): cancelling is cooperative, and the
    // task then ends as the job did. A server that does not offer the cancel tool (the read-only mode)
    // changes nothing: the job runs on, and the task ends as the job does.
    const cancel = installation.tools.get(cancelTool);
    if (cancel) await installation.run(cancel, { jobId: taskId }, ctx);
    return {};
  });
  server.server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    assertTasksDeclared(ctx, 'tasks/update');
    if (!(await find(taskId))) throw taskNotFound();
    return {};
  });
  return {
    async answerAsTask(ctx, result) {
      if (!declaresTasks(ctx) || !isRunningJob(result)) return result;
      const found = await find((result.structuredContent as { jobId: string }).jobId);
      // Only a job this caller's ledger holds can be followed as a task (a job read by id on a key of its own).
      if (!found) return result;
      return asToolAnswer({ resultType: 'task', ...taskOfJob(found, found.entry, result), content: [] });
    },
  };
}

/**
 * A task as the SDK's type of a tool's answer. SDK 2.4 does not know the extension and types a tool's
 * answer as a result (`resultType` "complete") or a question; on 2026-07-28 its wire codec passes any other
 * `resultType` of a `tools/call` answer through unchanged, which is what the extension asks for. This one
 * assertion is where the two types meet, until the SDK ships the extension.
 */
function asToolAnswer(task: TaskAnswer): CallToolResult {
  return task as unknown as CallToolResult;
}

/**
 * Notes in the job's entry that its task was cancelled, where the platform cannot stop the job: written with
 * the entry's revision, so that a write of the job engine made meanwhile is never lost, and only while the
 * entry still holds this job.
 */
async function noteCancelRequest(ledger: JobLedger, found: FoundJob): Promise<void> {
  const jobId = found.entry.id as string;
  let entry: LedgerEntry | undefined = found.entry;
  for (let attempt = 0; attempt < 5 && entry?.id === jobId; attempt++) {
    if (cancelNoteOf(entry)) return;
    const note: CancelNote = { jobId, at: new Date().toISOString() };
    const patch = { data: { ...entry.data, [CANCEL_NOTE]: note } };
    if (await ledger.compareAndSet(entry.service, entry.fingerprint, entry.revision, patch)) return;
    entry = await ledger.findById(found.job.service, jobId);
  }
}

/** The cancel noted for the job the entry holds now, if any (a note about an earlier job is not its). */
function cancelNoteOf(entry: LedgerEntry): CancelNote | undefined {
  const note = entry.data?.[CANCEL_NOTE] as Partial<CancelNote> | undefined;
  return typeof note?.at === 'string' && note.jobId === entry.id ? (note as CancelNote) : undefined;
}

/** A running task whose cancel could not stop its job says so. */
function withCancelNote<T extends TaskFields>(task: T, entry: LedgerEntry): T {
  if (task.status !== 'working' || !cancelNoteOf(entry)) return task;
  const note =
    'Cancel requested: this service cannot stop a job once started, so it runs to its end (nothing more is paid for it).';
  return { ...task, statusMessage: task.statusMessage ? `${note} ${task.statusMessage}` : note };
}
