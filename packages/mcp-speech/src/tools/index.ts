/**
 * Registers every tool of the speech server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { READING_SCORE_SERVICE } from '@polymodal/core/constants';
import { registerListJobsTool } from '@polymodal/mcp-common';
import { registerAskLlm } from './ask-llm.js';
import { registerGetReadingScore } from './get-reading-score.js';
import { registerGetThaiAsrConfig } from './get-thai-asr-config.js';
import { registerListLlmModels } from './list-llm-models.js';
import { registerScoreReading } from './score-reading.js';
import type { SpeechToolDeps } from './speech-tool-deps.js';
import { registerTranscribeThai } from './transcribe-thai.js';

export type { SpeechToolDeps } from './speech-tool-deps.js';

export function registerSpeechTools(server: McpServer, deps: SpeechToolDeps): void {
  registerListLlmModels(server, deps);
  registerAskLlm(server, deps);
  registerScoreReading(server, deps);
  registerGetReadingScore(server, deps);
  registerTranscribeThai(server, deps);
  registerGetThaiAsrConfig(server, deps);
  registerListJobsTool(server, {
    ledger: deps.context.ledger,
    services: [READING_SCORE_SERVICE],
    secrets: deps.context.secrets,
    hiddenDirs: () => deps.context.hiddenDirs(),
    getTool: 'get_reading_score',
    noun: 'queued reading scores',
  });
}
