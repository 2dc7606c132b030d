/**
 * Client of the shared LLM service: model discovery and OpenAI-compatible chat completions, a thin layer
 * over the chokepoint with `x-api-key`. A completion creates no job, but it is not idempotent either (a
 * repeat costs a second generation), so it is repeated only when the request provably never arrived or
 * after an explicit 429.
 */
import {
  ChatCompletionRequest,
  ChatCompletionResponse,
  LLM_API_PATH,
  LlmModelList,
} from '../contracts/llm.js';
import { ValidationError } from '../errors/index.js';
import type { HttpClient } from '../http/index.js';

export interface LlmCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface LlmClient {
  /** `GET /models`. */
  models(options?: LlmCallOptions): Promise<LlmModelList>;
  /** `POST /chat/completions`; the request is validated before anything is sent. */
  chat(request: ChatCompletionRequest, options?: LlmCallOptions): Promise<ChatCompletionResponse>;
  /** Convenience: one user prompt (and an optional system prompt) → the generated text. */
  complete(
    prompt: string,
    options: LlmCallOptions & { model: string; system?: string; temperature?: number; maxTokens?: number },
  ): Promise<string>;
}

/** Generations can take a while on a busy pool; longer than the chokepoint's default per attempt. */
const CHAT_TIMEOUT_MS = 120_000;

export function createLlmClient(options: { http: HttpClient }): LlmClient {
  const { http } = options;

  async function chat(
    request: ChatCompletionRequest,
    call: LlmCallOptions = {},
  ): Promise<ChatCompletionResponse> {
    const parsed = ChatCompletionRequest.safeParse(request);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new ValidationError(
        `Invalid chat request: ${issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ')}. Nothing was sent.`,
        issues,
      );
    }
    const response = await http.request({
      method: 'POST',
      path: `${LLM_API_PATH}/chat/completions`,
      json: parsed.data,
      schema: ChatCompletionResponse,
      idempotent: false,
      timeoutMs: call.timeoutMs ?? CHAT_TIMEOUT_MS,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return response.data;
  }

  return {
    async models(call = {}) {
      const response = await http.request({
        method: 'GET',
        path: `${LLM_API_PATH}/models`,
        schema: LlmModelList,
        idempotent: true,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
      });
      return response.data;
    },
    chat,
    async complete(prompt, call) {
      const messages: ChatCompletionRequest['messages'] = [];
      if (call.system) messages.push({ role: 'system', content: call.system });
      messages.push({ role: 'user', content: prompt });
      const response = await chat(
        {
          model: call.model,
          messages,
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          ...(call.maxTokens === undefined ? {} : { max_tokens: call.maxTokens }),
        },
        call,
      );
      return response.choices[0]?.message.content ?? '';
    },
  };
}
