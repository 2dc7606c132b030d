/**
 * The assistant message of a completion: a planner turn as a native tool call, as the JSON protocol's
 * `{"tool": ...}` or `{"answer": ...}`, or without tools the plain reply cut at `max_tokens`.
 */

import type { ChatRequest } from './chat-request.js';
import type { PlannerMessage } from './conversation.js';
import { plainReply, planTurn, toolsFromPrompt } from './planner-model.js';

/** Rough token count for `usage`: the sandbox has no tokenizer. */
export const tokens = (text: string) => Math.ceil(text.length / 4);

export interface Completion {
  message: Record<string, unknown>;
  finishReason: string;
}

/** Tools on offer: native `tools`, else those a JSON-protocol system prompt lists. */
function offeredTools(body: ChatRequest): { native: string[]; prompt: string[] } {
  const native = body.tools?.map((tool) => tool.function.name) ?? [];
  const system = body.messages.find((message) => message.role === 'system')?.content ?? '';
  const prompt = native.length === 0 && system.includes('{"tool"') ? toolsFromPrompt(system) : [];
  return { native, prompt };
}

function plannerMessages(body: ChatRequest): PlannerMessage[] {
  return body.messages.map((message) => ({
    role: message.role,
    content: message.content ?? null,
    ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
  }));
}

/** The completion of request number `sequence` (native tool call ids are `call_<sequence>`). */
export function complete(body: ChatRequest, sequence: number): Completion {
  const tools = offeredTools(body);
  const messages = plannerMessages(body);
  if (tools.native.length === 0 && tools.prompt.length === 0) {
    let text = plainReply(messages);
    let finishReason = 'stop';
    if (body.max_tokens && tokens(text) > body.max_tokens) {
      text = text.slice(0, body.max_tokens * 4);
      finishReason = 'length';
    }
    return { message: { role: 'assistant', content: text }, finishReason };
  }
  const turn = planTurn(messages, tools.native.length > 0 ? tools.native : tools.prompt);
  if (turn.kind === 'tool_call' && tools.native.length > 0) {
    const call = { name: turn.name, arguments: JSON.stringify(turn.arguments) };
    return {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${sequence}`, type: 'function', function: call }],
      },
      finishReason: 'tool_calls',
    };
  }
  if (turn.kind === 'tool_call') {
    const content = JSON.stringify({ tool: turn.name, arguments: turn.arguments });
    return { message: { role: 'assistant', content }, finishReason: 'stop' };
  }
  const content = tools.prompt.length > 0 ? JSON.stringify({ answer: turn.text }) : turn.text;
  return { message: { role: 'assistant', content }, finishReason: 'stop' };
}
