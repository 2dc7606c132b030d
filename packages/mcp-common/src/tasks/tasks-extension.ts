/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a host that declares it in a
 * request's capabilities may be answered with a task instead of a result, and then follows it with
 * `tasks/get` itself (Claude Code puts the call in the background). Here a task is a job of the ledger: its
 * id is the job handle the tools already return, its state the job's as its `get_*` tool reads it.
 *
 * The extension exists on 2026-07-28 only: a 2025-11-25 request never gets a task and never reaches a task
 * method ("Method not found"), whatever capabilities its connection declared.
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isModernRequest, requestCapabilities } from '../server/call-questions.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * How long a call that may answer with a task waits for its job first: a job done by then answers as a
 * result (a short meeting, a cached resume), any other as a task at once, so the host can put it in the
 * background instead of holding the model's turn.
 */
export const TASK_FIRST_WAIT_SECONDS = 2;

/** Whether this request may be answered with a task: 2026-07-28, and the extension declared in it. */
export function declaresTasks(ctx: ServerContext): boolean {
  if (!isModernRequest(ctx)) return false;
  const declared = requestCapabilities(ctx)?.extensions?.[TASKS_EXTENSION];
  return typeof declared === 'object' && declared !== null;
}

/**
 * Refuses a task method to a request that may not use it: on 2025-11-25 the methods do not exist (-32601),
 * on 2026-07-28 they need the extension declared (-32021, naming it).
 */
export function assertTasksDeclared(ctx: ServerContext, method: string): void {
  if (!isModernRequest(ctx)) throw new ProtocolError(-32601, `Method not found: ${method}`);
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `${method} needs the ${TASKS_EXTENSION} extension declared in the request's capabilities`,
    );
  }
}

/** A task this caller cannot see: unknown, or another tenant's (the same answer, so that nothing tells which). */
export function taskNotFound(): ProtocolError {
  return new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
}
