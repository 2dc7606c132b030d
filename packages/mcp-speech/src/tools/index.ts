/**
 * Registers every tool of the speech server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerAskLlm } from './ask-llm.js';
import { registerListLlmModels } from './list-llm-models.js';
import type { SpeechToolDeps } from './speech-tool-deps.js';

export type { SpeechToolDeps } from './speech-tool-deps.js';

export function registerSpeechTools(server: McpServer, deps: SpeechToolDeps): void {
  registerListLlmModels(server, deps);
  registerAskLlm(server, deps);
}
