/**
 * The slice of the OpenAI-compatible chat format the agent uses. The platform's shared LLM documents only
 * model, messages, temperature and max_tokens; native tool calls are used when the endpoint returns them.
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call as it travels in OpenAI-style messages (arguments as a JSON string). */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model turn: either tool calls to make, or a final answer. */
export type ModelTurn =
  | { kind: 'tool_calls'; calls: ToolCall[]; content: string | null; protocol: 'native' | 'json' }
  | { kind: 'answer'; text: string }
  | { kind: 'malformed'; raw: string; problem: string };

export interface ChatModel {
  /** Model id, for the trace. */
  readonly id: string;
  next(
    messages: readonly ChatMessage[],
    tools: readonly ToolSpec[],
    signal?: AbortSignal,
  ): Promise<ModelTurn>;
}
