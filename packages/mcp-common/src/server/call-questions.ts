/**
 * What a tool call asks its client, as multi-round-trip results (`inputRequired`): a question for the user
 * (`ToolSession.elicit`) or the client's roots. The code that asks is written as an ordinary await
 * (`askInCall`). The first run of the call stops there and the call is answered with what it asks; the client
 * answers and calls again, and the call runs again from its start, this time finding the answer. A 2026-07-28
 * client does this itself; on a 2025-11-25 connection that can ask (stdio, `--sessions`) the SDK's legacy shim
 * sends the real request (`elicitation/create`, `roots/list`) and calls the handler again. So whatever asks
 * comes before anything that costs.
 *
 * The answers of a round come with that round only, so the answers gathered so far travel with the call in its
 * `requestState` (the client echoes it unchanged): a call that needs the roots and then a question, on a
 * server built for each request, does not ask for the roots again. That state comes back from the client and
 * is read as the client's own answers, never as anything more: it holds only what the client could answer
 * anyway, and is ignored when it is not such answers or is larger than `MAX_STATE_BYTES`.
 *
 * The run left waiting on an answer holds no timer and nothing refers to it once the call has been answered.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** The call under way: its request, the answers it has so far, and what it asks now. */
interface CallScope {
  ctx: ServerContext;
  answers: Record<string, unknown>;
  asked: Record<string, InputRequest>;
  onAsked: () => void;
}

/** Answers carried between rounds above this size are not read (a client's roots and one form are far less). */
export const MAX_STATE_BYTES = 64 * 1024;

const calls = new AsyncLocalStorage<CallScope>();

/**
 * Runs a call in which `askInCall` may ask the client. Answers with what was asked, when the call asked for
 * something its request did not answer; otherwise with the call's own result.
 */
export async function withQuestions(
  ctx: ServerContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult | InputRequiredResult> {
  let asked!: () => void;
  const question = new Promise<'asked'>((resolve) => {
    asked = () => resolve('asked');
  });
  const answers = { ...answersCarried(ctx), ...(ctx.mcpReq.inputResponses ?? {}) };
  const scope: CallScope = { ctx, answers, asked: {}, onAsked: asked };
  const result = await calls.run(scope, () => Promise.race([run(), question]));
  if (result !== 'asked') return result;
  return inputRequired({
    inputRequests: scope.asked,
    ...(Object.keys(answers).length > 0 ? { requestState: JSON.stringify(answers) } : {}),
  });
}

/**
 * The client's answer to `request` (named `key` within the call), when the call has it; otherwise the call is
 * answered with the request and this run waits for good. Outside a call (`withQuestions`) it refuses.
 */
export function askInCall(key: string, request: InputRequest): Promise<unknown> {
  const scope = calls.getStore();
  if (!scope) return Promise.reject(new Error('Nothing can be asked outside a tool call.'));
  if (key in scope.answers) return Promise.resolve(scope.answers[key]);
  scope.asked[key] = request;
  scope.onAsked();
  return new Promise<never>(() => {});
}

/** The request of the call under way, if any. */
export function currentCall(): ServerContext | undefined {
  return calls.getStore()?.ctx;
}

/** Whether the request speaks 2026-07-28 (it carries the per-request envelope). */
export function isModernRequest(ctx: ServerContext): boolean {
  const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope;
  return envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined;
}

/**
 * The capabilities the request declares on 2026-07-28; undefined on 2025-11-25, where they are the
 * connection's (its `initialize`), not the request's.
 */
export function requestCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  // The SDK's public type of the envelope names none of its keys.
  const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return isRecord(declared) ? declared : undefined;
}

/** The answers an earlier round of this call gathered, from its `requestState`. */
function answersCarried(ctx: ServerContext): Record<string, unknown> {
  const state = ctx.mcpReq.requestState<unknown>();
  if (typeof state !== 'string' || state.length > MAX_STATE_BYTES) return {};
  try {
    const parsed: unknown = JSON.parse(state);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
