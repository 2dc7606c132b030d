/**
 * Wire contracts of the shared LLM service (`/api/llm/v1`, OpenAI-compatible), from
 * spec/speech-and-language.md. The spec documents the request fields model, messages, temperature and
 * max_tokens; `tools` is sent only when a caller asks for it (OpenAI-style function tools), because
 * further request fields are "not shown". Responses are lenient: only `choices[].message` is relied on.
 */
import { z } from 'zod';

export const LlmModel = z.looseObject({
  id: z.string().min(1),
  object: z.string().optional(),
  owned_by: z.string().optional(),
});
export type LlmModel = z.infer<typeof LlmModel>;

export const LlmModelList = z.looseObject({
  object: z.string().optional(),
  data: z.array(LlmModel),
});
export type LlmModelList = z.infer<typeof LlmModelList>;

export const LlmToolCall = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().default('{}') }),
});
export type LlmToolCall = z.infer<typeof LlmToolCall>;

export const LlmMessage = z.union([
  z.strictObject({ role: z.enum(['system', 'user']), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z
      .array(
        z.strictObject({
          id: z.string(),
          type: z.literal('function'),
          function: z.strictObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
export type LlmMessage = z.infer<typeof LlmMessage>;

export const LlmFunctionTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type LlmFunctionTool = z.infer<typeof LlmFunctionTool>;

/** Chat request (strict: nothing beyond the documented fields, plus `tools` when the caller gives them). */
export const ChatCompletionRequest = z.strictObject({
  model: z.string().min(1),
  messages: z.array(LlmMessage).min(1),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  tools: z.array(LlmFunctionTool).min(1).optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

export const ChatCompletionResponse = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        finish_reason: z.string().nullish(),
        message: z.looseObject({
          role: z.string().optional(),
          content: z.string().nullish(),
          tool_calls: z.array(LlmToolCall).nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.unknown().optional(),
});
export type ChatCompletionResponse = z.infer<typeof ChatCompletionResponse>;

/**
 * Error body of the LLM routes. The spec does not show it ("HTTP status codes and error body: not
 * shown"); an OpenAI-compatible router answers `{error: {message, type, code, param}}`, and the rest of the
 * platform `{error: string}`, so both are read.
 */
export const LlmErrorBody = z.looseObject({
  error: z.union([
    z.string(),
    z.looseObject({
      message: z.string().optional(),
      type: z.string().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
      param: z.string().nullish(),
    }),
  ]),
});
export type LlmErrorBody = z.infer<typeof LlmErrorBody>;
