/**
 * The agent's model on any OpenAI-compatible endpoint (`<base URL>/chat/completions`, `Authorization:
 * Bearer <key>`), through core's own HTTP chokepoint and LLM client: the same timeouts, the same rule that
 * a completion is repeated only when it provably never arrived or after a 429, and the key masked in every
 * error the endpoint's body could echo.
 */
import { ApiError, type ChatCompletionRequest } from '@polymodal/core';
import { createHttpClient } from '@polymodal/core/http';
import { createLlmClient } from '@polymodal/core/llm';
import type { ChatModel } from './chat-types.js';
import { createOpenAiModel } from './openai-model.js';

export function createEndpointModel(options: {
  /** Checked by `checkEndpointUrl`: https, or http to loopback. */
  baseUrl: string;
  apiKey: string;
  model: string;
}): ChatModel & { close(): Promise<void> } {
  const http = createHttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    auth: 'bearer',
    userAgent: `polymodal-demo node/${process.versions.node}`,
  });
  // The base URL already ends where the OpenAI routes start (e.g. …/v1).
  const llm = createLlmClient({ http, apiKey: options.apiKey, apiPath: '' });
  const model = createOpenAiModel({
    model: options.model,
    complete: (request, signal) => llm.chat(request as ChatCompletionRequest, signal ? { signal } : {}),
    isRequestRefused: (error) => ApiError.isInstance(error) && error.status === 400,
  });
  return {
    id: model.id,
    next: (messages, tools, signal) => model.next(messages, tools, signal),
    close: () => http.close(),
  };
}
