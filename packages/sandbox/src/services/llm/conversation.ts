/**
 * The planner's view of a conversation: the messages it is given, the tool calls read back out of them
 * (native `tool_calls` answered by `tool` messages, or the JSON protocol's `{"tool": ...}` answered by a
 * "Result of ..." user message), the person's own messages among the user messages, and the turn it answers
 * with.
 */

export interface PlannerMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
}

export type PlannerTurn =
  | { kind: 'tool_call'; name: string; arguments: Record<string, unknown> }
  | { kind: 'answer'; text: string };

/** One tool call of the conversation and, once it came back, its result. */
export interface ToolExchange {
  name: string;
  arguments: Record<string, unknown>;
  /** The structured result, when the tool's answer held a JSON object. */
  result: Record<string, unknown> | undefined;
  text: string;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.trim());
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function fillResult(exchange: ToolExchange, content: string): void {
  exchange.text = content;
  const marker = content.indexOf('structuredContent: ');
  exchange.result =
    marker >= 0 ? parseObject(content.slice(marker + 'structuredContent: '.length)) : parseObject(content);
}

/**
 * A message of the person's own (a user message that is not a tool result): a task in words, or a prompt's
 * message as a host hands it over.
 */
export interface PersonMessage {
  text: string;
  /** How many times the model had answered (without calling a tool) before it: a reply comes after one. */
  answersBefore: number;
}

export interface Conversation {
  exchanges: ToolExchange[];
  /** The person's messages, in order. */
  requests: PersonMessage[];
}

/** Whether an assistant message calls a tool (native `tool_calls` or the JSON protocol's `{"tool": ...}`). */
function callsTool(message: PlannerMessage): boolean {
  if ((message.tool_calls ?? []).length > 0) return true;
  return typeof parseObject(message.content ?? '')?.tool === 'string';
}

export function readConversation(messages: readonly PlannerMessage[]): Conversation {
  const exchanges: ToolExchange[] = [];
  const requests: PersonMessage[] = [];
  const pending = new Map<string, ToolExchange>();
  let lastJsonCall: ToolExchange | undefined;
  let answers = 0;
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (!callsTool(message)) answers += 1;
      for (const call of message.tool_calls ?? []) {
        const exchange: ToolExchange = {
          name: call.function?.name ?? '',
          arguments: parseObject(call.function?.arguments ?? '') ?? {},
          result: undefined,
          text: '',
        };
        exchanges.push(exchange);
        if (call.id) pending.set(call.id, exchange);
      }
      const json = parseObject(message.content ?? '');
      if (json && typeof json.tool === 'string') {
        lastJsonCall = {
          name: json.tool,
          arguments: (json.arguments as Record<string, unknown>) ?? {},
          result: undefined,
          text: '',
        };
        exchanges.push(lastJsonCall);
      }
    } else if (message.role === 'tool') {
      const exchange = pending.get(message.tool_call_id ?? '');
      if (exchange) fillResult(exchange, message.content ?? '');
    } else if (
      message.role === 'user' &&
      lastJsonCall &&
      /^(Result of |Tool result)/.test(message.content ?? '')
    ) {
      fillResult(lastJsonCall, (message.content ?? '').replace(/^[^\n]*\n/, ''));
      lastJsonCall = undefined;
    } else if (message.role === 'user') {
      requests.push({ text: message.content ?? '', answersBefore: answers });
    }
  }
  return { exchanges, requests };
}
