/**
 * The agent's model on the platform's shared LLM through @polymodal/core. The model id is the one asked
 * for (it must be listed by `/models`), else the first model listed.
 */
import { ApiError, type ChatCompletionRequest, type Polymodal } from '@polymodal/core';
import type { ChatModel } from './chat-types.js';
import { createOpenAiModel } from './openai-model.js';

export async function createPlatformModel(
  polymodal: Polymodal,
  wanted: string | undefined,
): Promise<ChatModel> {
  const { data } = await polymodal.llm.models();
  const ids = data.map((model) => model.id);
  const model = wanted || ids[0];
  if (!model) throw new Error('The shared LLM lists no models (GET /api/llm/v1/models returned none).');
  if (wanted && !ids.includes(wanted)) {
    throw new Error(`Model ${wanted} is not among the platform's models: ${ids.join(', ')}.`);
  }
  return createOpenAiModel({
    model,
    complete: (request, signal) =>
      polymodal.llm.chat(request as ChatCompletionRequest, signal ? { signal } : {}),
    // A 400 to a request with `tools` means the endpoint does not take them: use the JSON protocol instead.
    isRequestRefused: (error) => ApiError.isInstance(error) && error.status === 400,
  });
}
