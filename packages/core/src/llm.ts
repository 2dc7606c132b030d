/** `@polymodal/core/llm`: the shared LLM's client on an HTTP client of the caller's, and its error reader. */
export { createLlmClient, type LlmClient, readLlmError } from './llm/create-llm-client.js';
