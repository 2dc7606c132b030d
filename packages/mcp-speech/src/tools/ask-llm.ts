/**
 * ask_llm: one chat completion on the platform's shared LLM, from a prompt or a list of messages.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ValidationError } from '@polymodal/core';
import { PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { type SpeechToolDeps, speechToolError } from './speech-tool-deps.js';

const DESCRIPTION = `Asks the Polymodal shared LLM (OpenAI-compatible chat completions on a pool of local models) and returns the generated text. Give either "prompt" (with an optional "system") or "messages" (a conversation of system/user/assistant turns), not both. Usage is recorded under the key's team. Usually takes a few seconds. Call list_llm_models to pick a model; without "model" the first listed is used.`;

const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().min(1),
});

export function registerAskLlm(server: McpServer, deps: SpeechToolDeps): void {
  server.registerTool(
    'ask_llm',
    {
      title: 'Ask the shared LLM',
      description: DESCRIPTION,
      inputSchema: {
        prompt: z.string().min(1).optional().describe('The question or instruction (instead of messages).'),
        system: z.string().min(1).optional().describe('System instruction to go with prompt.'),
        messages: z
          .array(messageSchema)
          .min(1)
          .optional()
          .describe('A whole conversation instead of prompt; the last turn is usually the user.'),
        model: z
          .string()
          .min(1)
          .optional()
          .describe('Model id from list_llm_models (default: the first listed).'),
        temperature: z.number().min(0).max(2).optional().describe('Sampling temperature, 0 to 2.'),
        max_tokens: z.number().int().min(1).max(32_768).optional().describe('Most tokens to generate.'),
      },
      outputSchema: {
        model: z.string(),
        text: z.string(),
        finishReason: z.string().nullable(),
      },
      annotations: {
        title: 'Ask the shared LLM',
        ...PLATFORM_WORK_ANNOTATIONS,
      },
    },
    async (args, extra) => {
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
        const { llm } = deps.context.polymodal;
        const model = args.model ?? (await llm.models({ signal: extra.signal })).data[0]?.id;
        if (!model) throw new ValidationError('The shared LLM lists no models; nothing to ask.');
        const messages = args.messages ?? [
          ...(args.system ? [{ role: 'system' as const, content: args.system }] : []),
          { role: 'user' as const, content: args.prompt as string },
        ];
        const response = await llm.chat(
          {
            model,
            messages,
            ...(args.temperature === undefined ? {} : { temperature: args.temperature }),
            ...(args.max_tokens === undefined ? {} : { max_tokens: args.max_tokens }),
          },
          { signal: extra.signal },
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
        return speechToolError(error, deps);
      }
    },
  );
}
