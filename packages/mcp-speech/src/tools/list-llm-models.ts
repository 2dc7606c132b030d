/**
 * list_llm_models: the models of the platform's shared LLM pool, to pick one for ask_llm. Bounded by one
 * tool-call deadline: a list that hangs is not retried past it.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { createToolDeadline, defineTool, READ_ONLY_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { llmToolError } from './ask-llm.js';

const DESCRIPTION = `Lists the shared LLM's model ids for ask_llm (default: the first). Free.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const listLlmModelsInput = {};

const listLlmModelsOutput = {
  models: z.array(z.object({ id: z.string(), ownedBy: z.string().nullable() })),
  count: z.number(),
};

export const listLlmModelsTool = defineTool({
  name: 'list_llm_models',
  title: 'List shared LLM models',
  description: DESCRIPTION,
  inputSchema: listLlmModelsInput,
  outputSchema: listLlmModelsOutput,
  annotations: READ_ONLY_ANNOTATIONS,
  handler: (deps: ToolDeps) => {
    const seconds = deps.toolDeadlineSeconds;
    return async (_args, extra) => {
      const deadline = createToolDeadline(extra.signal, seconds);
      try {
        const { data } = await deps.platform.client.llm.models({
          signal: extra.signal,
          deadline: deadline.at,
        });
        const models = data.map((model) => ({ id: model.id, ownedBy: model.owned_by ?? null }));
        const text =
          models.length === 0
            ? 'The shared LLM lists no models.'
            : `${models.length} model(s): ${models.map((model) => model.id).join(', ')}. Use one as "model" in ask_llm.`;
        return { content: [{ type: 'text', text }], structuredContent: { models, count: models.length } };
      } catch (error) {
        return llmToolError(error, deps, { step: 'models', seconds });
      } finally {
        deadline.dispose();
      }
    };
  },
});
