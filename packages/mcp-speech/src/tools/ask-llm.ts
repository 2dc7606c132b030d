/**
 * ask_llm: one chat completion on the platform's shared LLM, from a prompt or a list of messages, within
 * one tool-call deadline (50 s by default) so that the host's ~60 s limit never cuts the call off silently.
 */

import { redactSecrets } from '@polymodal/core/config';
import { NotFoundError, TimeoutError, ValidationError } from '@polymodal/core/errors';
import type { CallToolResult, ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  TOOL_ERROR_META_KEY,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';

const describeTool = (seconds: number) =>
  `Asks the shared LLM (chat completions) and returns the text. Give prompt (optional system) or messages, not both. Usage counts for the key's team. A few seconds; gives up after ${seconds} s. Models: list_llm_models.`;

const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().min(1),
});

/** Which request of the call failed: the model list (only when no model was given) or the completion. */
type LlmStep = 'models' | 'chat';

/**
 * Error results of the LLM tools. A 404 and a deadline are described here rather than by the shared
 * `toolError`, whose 404 text is about jobs and whose timeout text cannot say that a completion was sent
 * and not repeated.
 */
export function llmToolError(
  error: unknown,
  deps: ToolDeps,
  context: { step: LlmStep; model?: string | undefined; seconds: number },
): CallToolResult {
  let text: string | undefined;
  if (NotFoundError.isInstance(error)) {
    const said = error.serverMessage ? ` (platform said: ${error.serverMessage})` : '';
    text =
      context.step === 'chat'
        ? `HTTP 404: model '${context.model ?? '?'}' was not found on the shared LLM${said}. Call list_llm_models to see the model ids, then call ask_llm again with one of them as "model".`
        : `HTTP 404: the shared LLM's model list was not found${said}. Check that POLYMODAL_BASE_URL points at the platform.`;
  } else if (TimeoutError.isInstance(error) && error.deadlineReached) {
    text =
      context.step === 'chat'
        ? `The model '${context.model ?? '?'}' did not answer within ${context.seconds} s, the time this tool gives one call, so the call stopped waiting. The request had reached the platform and was not sent again; whether an unanswered completion still counts in the team's usage is not documented. Ask again with a shorter prompt or a lower max_tokens, or pick another model with list_llm_models.`
        : `The shared LLM's model list did not answer within ${context.seconds} s, so nothing was asked. Try again shortly, or give "model" (from an earlier list_llm_models) to skip the list.`;
  }
  if (text === undefined) return toolErrorFor(error, deps);
  const message = redactSecrets(text, deps.platform.secrets);
  const info = NotFoundError.isInstance(error)
    ? { kind: 'api', status: 404, message }
    : { kind: 'timeout', message };
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [TOOL_ERROR_META_KEY]: info },
  };
}

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const askLlmInput = {
  prompt: z.string().min(1).optional(),
  system: z.string().min(1).optional(),
  messages: z.array(messageSchema).min(1).optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(32_768).optional(),
};

const askLlmOutput = {
  model: z.string(),
  text: z.string(),
  finishReason: z.string().nullable(),
};

export const askLlmTool = defineTool({
  name: 'ask_llm',
  title: 'Ask the shared LLM',
  description: describeTool,
  inputSchema: askLlmInput,
  outputSchema: askLlmOutput,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  handler: (deps: ToolDeps) => {
    const seconds = deps.toolDeadlineSeconds;
    return async (args, extra) => {
      const deadline = createToolDeadline(extra.signal, seconds);
      // The caller's cancellation goes down as the signal; the deadline as `deadline`, so that the client
      // stops in time and says what happened instead of reporting a cancellation.
      const call = { signal: extra.signal, deadline: deadline.at };
      let step: LlmStep = 'models';
      let model = args.model;
      try {
        if ((args.prompt === undefined) === (args.messages === undefined)) {
          throw new ValidationError('Give either "prompt" or "messages" (exactly one). Nothing was sent.', [
            { path: 'prompt', message: 'prompt XOR messages' },
          ]);
        }
        if (args.messages && args.system) {
          throw new ValidationError(
            '"system" goes with "prompt"; put a system turn into "messages" instead.',
            [{ path: 'system', message: 'only with prompt' }],
          );
        }
        const { llm } = deps.platform.client;
        model ??= (await llm.models(call)).data[0]?.id;
        if (!model) throw new ValidationError('The shared LLM lists no models; nothing to ask.');
        const messages = args.messages ?? [
          ...(args.system ? [{ role: 'system' as const, content: args.system }] : []),
          { role: 'user' as const, content: args.prompt as string },
        ];
        step = 'chat';
        const response = await llm.chat(
          {
            model,
            messages,
            ...(args.temperature === undefined ? {} : { temperature: args.temperature }),
            ...(args.max_tokens === undefined ? {} : { max_tokens: args.max_tokens }),
          },
          call,
        );
        const choice = response.choices[0];
        const text = choice?.message.content ?? '';
        const finishReason = choice?.finish_reason ?? null;
        const note = finishReason === 'length' ? '\n[cut off at max_tokens]' : '';
        return {
          content: [{ type: 'text', text: `${text}${note}` }],
          structuredContent: { model, text, finishReason },
        };
      } catch (error) {
        return llmToolError(error, deps, { step, model, seconds });
      } finally {
        deadline.dispose();
      }
    };
  },
});
