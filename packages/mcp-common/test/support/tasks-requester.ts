/**
 * A host that runs the Tasks extension, as tests need one: the extension's own requester
 * (`@modelcontextprotocol/ext-tasks`, written by the extension's authors) on an SDK client over Streamable
 * HTTP. The SDK client of 2.4 refuses a `resultType: "task"` answer, so the requester takes its 2026-07-28
 * requests through a raw path of its host, given here: one POST per request, framed as an SDK client frames
 * it (the method and, for a tool or a task, its name in the headers).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
  type TaskEnabledSession,
  type ToolExecution,
} from '@modelcontextprotocol/ext-tasks/client';
import { expect } from 'vitest';
import { JSON_HEADERS } from './raw-http.js';

const CLIENT_INFO = { name: 'tasks-requester', version: '1.0.0' };

export interface TasksHost {
  /** The SDK client the requester runs on (also a plain client of the same server). */
  client: Client;
  session: TaskEnabledSession;
  /** One raw 2026-07-28 request, answered as the requester sees answers. */
  dispatch: RawClientDispatch;
  close(): Promise<void>;
}

/** A Tasks-running host on the server at `url`, presenting `token` when given. */
export async function connectTasksHost(url: string, token?: string): Promise<TasksHost> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
  const dispatch = httpDispatch(url, auth);
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: dispatch,
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: CLIENT_INFO, clientCapabilities: {} },
  });
  return {
    client,
    session,
    dispatch,
    async close() {
      await session.close();
      await client.close();
    },
  };
}

/** Requests as one POST each to `url`, with `headers` (a bearer token), answered as JSON or as an event stream. */
export function httpDispatch(url: string, headers: Record<string, string> = {}): RawClientDispatch {
  let nextId = 1;
  return async (request, options) => {
    // The requester hands over the request; the host frames it as a JSON-RPC message of its own id.
    const message: {
      jsonrpc: string;
      id: unknown;
      method: string;
      params?: { name?: unknown; taskId?: unknown };
    } = {
      jsonrpc: '2.0',
      id: nextId++,
      ...(request as { method: string }),
    };
    const name =
      message.params?.taskId ?? (message.method === 'tools/call' ? message.params?.name : undefined);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': message.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      },
      body: JSON.stringify(message),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const answer = answerOf(await response.text(), message.id);
    return answer.error === undefined
      ? { kind: 'result', result: answer.result as never }
      : { kind: 'error', error: answer.error as never };
  };
}

/** The JSON-RPC answer to request `id` in a JSON body or an event stream (progress may come before it). */
export function answerOf(body: string, id: unknown): { result?: unknown; error?: unknown } {
  const messages = body.trimStart().startsWith('{')
    ? [JSON.parse(body)]
    : body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)));
  const answer = messages.find(
    (candidate: { id?: unknown; result?: unknown; error?: unknown }) =>
      candidate.id === id && (candidate.result !== undefined || candidate.error !== undefined),
  );
  if (!answer) throw new Error(`no answer to request ${String(id)} in: ${body.slice(0, 300)}`);
  return answer;
}

/**
 * The `_meta` envelope of a raw 2026-07-28 request, its client's capabilities as given (default: the Tasks
 * extension declared, as a host that runs tasks sends them).
 */
export function modernEnvelope(
  clientCapabilities: Record<string, unknown> = { extensions: { 'io.modelcontextprotocol/tasks': {} } },
): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
  };
}

/** A task method (`tasks/get`, `tasks/cancel`, `tasks/update`) sent raw, on `envelope` (default: declaring). */
export function taskRequest(
  dispatch: RawClientDispatch,
  method: 'tasks/get' | 'tasks/cancel' | 'tasks/update',
  taskId: string,
  envelope: Record<string, unknown> = modernEnvelope(),
): ReturnType<RawClientDispatch> {
  return dispatch({ method, params: { taskId, _meta: envelope } } as never);
}

/** What a tool call or `tasks/get` answered, as tests read it (a task's fields, or a tool's result). */
export type RawAnswer = Record<string, unknown> & {
  resultType?: string;
  taskId?: string;
  status?: string;
  statusMessage?: string;
  pollIntervalMs?: number;
};

/**
 * A tool call sent raw on `envelope` (default: declaring the extension), so that no host follows the task
 * it may answer with; its result, or an error naming the JSON-RPC error.
 */
export async function callToolRaw(
  dispatch: RawClientDispatch,
  name: string,
  args: Record<string, unknown>,
  envelope: Record<string, unknown> = modernEnvelope(),
): Promise<RawAnswer> {
  const answer = await dispatch({
    method: 'tools/call',
    params: { name, arguments: args, _meta: envelope },
  } as never);
  if (answer.kind !== 'result') throw new Error(`tools/call ${name}: ${JSON.stringify(answer)}`);
  return answer.result as unknown as RawAnswer;
}

/**
 * `tasks/get` of `taskId` until it is no longer working, as a host polls: each read `pollIntervalMs` after the
 * one before (a read sooner may answer the job's state as last read). Fails after `timeoutMs`.
 */
export async function followTask(
  dispatch: RawClientDispatch,
  taskId: string,
  timeoutMs = 10_000,
): Promise<RawAnswer & { status: string }> {
  const started = Date.now();
  for (;;) {
    const answer = await taskRequest(dispatch, 'tasks/get', taskId);
    if (answer.kind !== 'result') throw new Error(`tasks/get ${taskId}: ${JSON.stringify(answer)}`);
    const task = answer.result as unknown as RawAnswer & { status: string };
    if (task.status !== 'working') return task;
    if (Date.now() - started > timeoutMs)
      throw new Error(`task ${taskId} still working after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs ?? 100));
  }
}

/** How a tool execution ended, as the host hands it back: its status, and the tool's result once completed. */
export async function settled(
  execution: ToolExecution<unknown>,
): Promise<{ status: string; result?: { content: unknown[]; structuredContent?: Record<string, unknown> } }> {
  const { outcome } = await execution.settle();
  return outcome.status === 'completed'
    ? { status: outcome.status, result: resultFromTaskOutcome(outcome) as never }
    : { status: outcome.status };
}

/**
 * A completed task's result is exactly the tool's: the same text and links (`content`) and the same
 * structured result, as the job's `get_*` tool answers a client without the extension.
 */
export function expectSameResult(
  fromTask: { content?: unknown; structuredContent?: unknown; isError?: unknown } | undefined,
  fromTool: { content?: unknown; structuredContent?: unknown; isError?: unknown },
): void {
  expect(fromTask, 'the task has a result').toBeDefined();
  expect(fromTask?.structuredContent).toEqual(fromTool.structuredContent);
  expect(fromTask?.content).toEqual(fromTool.content);
  expect(fromTask?.isError).toEqual(fromTool.isError);
}
