/**
 * The chat completion request the LLM service accepts (OpenAI-compatible, extra fields ignored as a
 * router would), parsed into a 400 that names the first bad field.
 */
import { z } from 'zod';
import { HttpError } from '../../framework/http-error.js';

const Message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
});

const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  tools: z
    .array(
      z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
    )
    .optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export function parseChatRequest(body: unknown): ChatRequest {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      400,
      `invalid chat request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
