/**
 * A ChatModel over any OpenAI-compatible `/chat/completions` function (the platform's shared LLM).
 * Tools are offered natively; when the endpoint refuses the `tools` field (400) the model falls back, for
 * the rest of the run, to the JSON tool-call protocol that the system prompt always describes. Replies
 * without native tool calls are read through that protocol.
 */
import type { ChatMessage, ChatModel, ModelTurn, ToolCall, ToolSpec } from './chat-types.js';
import { parseJsonProtocol } from './json-protocol.js';

export interface ChatCompletionRequest {
  model: string;
  messages: readonly ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  tools?: {
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }[];
}

export interface ChatCompletionResponse {
  choices: {
    message: {
      content?: string | null;
      tool_calls?: { id?: string; type?: string; function?: { name?: string; arguments?: string } }[] | null;
    };
  }[];
}

export type ChatCompletionFunction = (
  request: ChatCompletionRequest,
  signal?: AbortSignal,
) => Promise<ChatCompletionResponse>;

/** Whether an error from the completion function means "this request shape is refused" (HTTP 400). */
export type IsRequestRefused = (error: unknown) => boolean;

export function createOpenAiModel(options: {
  model: string;
  complete: ChatCompletionFunction;
  isRequestRefused: IsRequestRefused;
  temperature?: number;
  maxTokens?: number;
}): ChatModel & { readonly protocol: 'native' | 'json' } {
  let nativeTools = true;
  let callCounter = 0;
  return {
    id: options.model,
    get protocol() {
      return nativeTools ? ('native' as const) : ('json' as const);
    },
    async next(messages, tools, signal): Promise<ModelTurn> {
      const base: ChatCompletionRequest = {
        model: options.model,
        // Without native tools, earlier native-format messages are flattened into plain text.
        messages,
        temperature: options.temperature ?? 0,
        max_tokens: options.maxTokens ?? 1024,
      };
      let response: ChatCompletionResponse;
      if (nativeTools && tools.length > 0) {
        try {
          response = await options.complete({ ...base, tools: tools.map(toWireTool) }, signal);
        } catch (error) {
          if (!options.isRequestRefused(error)) throw error;
          nativeTools = false;
          response = await options.complete({ ...base, messages: flatten(messages) }, signal);
        }
      } else {
        response = await options.complete(
          nativeTools ? base : { ...base, messages: flatten(messages) },
          signal,
        );
      }
      const message = response.choices[0]?.message;
      if (!message) return { kind: 'malformed', raw: '', problem: 'the completion has no choices' };
      const native = message.tool_calls ?? [];
      if (native.length > 0) {
        const calls: ToolCall[] = [];
        for (const call of native) {
          const name = call.function?.name ?? '';
          let args: unknown;
          try {
            args = call.function?.arguments ? JSON.parse(call.function.arguments) : {};
          } catch {
            return {
              kind: 'malformed',
              raw: JSON.stringify(native),
              problem: `arguments of ${name} are not JSON`,
            };
          }
          if (typeof args !== 'object' || args === null || Array.isArray(args)) {
            return {
              kind: 'malformed',
              raw: JSON.stringify(native),
              problem: `arguments of ${name} are not an object`,
            };
          }
          callCounter += 1;
          calls.push({
            id: call.id ?? `call_${callCounter}`,
            name,
            arguments: args as Record<string, unknown>,
          });
        }
        return { kind: 'tool_calls', protocol: 'native', content: message.content ?? null, calls };
      }
      return parseJsonProtocol(message.content ?? '', tools);
    },
  };
}

function toWireTool(tool: ToolSpec) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/** Native tool messages rewritten as plain text, for endpoints that know only system/user/assistant. */
function flatten(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    if (message.role === 'tool') return { role: 'user', content: `Tool result:\n${message.content}` };
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const call = message.tool_calls[0];
      return {
        role: 'assistant',
        content: JSON.stringify({
          tool: call?.function.name,
          arguments: JSON.parse(call?.function.arguments ?? '{}'),
        }),
      };
    }
    return message;
  });
}
