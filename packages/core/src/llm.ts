/** `@polymodal/core/llm`: the shared LLM's client on an HTTP client of the caller's, and its error reader. */
export { createLlmClient, type LlmClient } from './llm/create-llm-client.js';
export { readLlmError } from './llm/llm-error.js';
