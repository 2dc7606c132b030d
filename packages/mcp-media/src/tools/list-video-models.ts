/**
 * list_video_models: the catalog video service's models with what each needs, so an agent can build a
 * generate_video call that passes validation.
 */
import { inputSlots } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool, READ_ONLY_ANNOTATIONS, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const listVideoModelsInput = {
  refresh: z.boolean().default(false).describe('Skip the 5-minute cache.'),
};

// Terse (issue 14): each model's parameters (name, type, required, format, values, range, default) pass as
// further properties; the README's Tools section lists them.
const listVideoModelsOutput = z.looseObject({
  models: z.array(z.looseObject({ id: z.string(), required: z.array(z.string()) })),
});

export const listVideoModelsTool = defineTool({
  name: 'list_video_models',
  title: 'List video models',
  description: 'Lists video models for generate_video: ids, categories, required fields, parameters. Free.',
  inputSchema: listVideoModelsInput,
  outputSchema: listVideoModelsOutput,
  annotations: READ_ONLY_ANNOTATIONS,
  handler:
    (deps: ToolDeps) =>
    async ({ refresh }, extra) => {
      try {
        const catalog = await deps.platform.client.catalogVideo.models({
          refresh,
          signal: extra.signal,
          deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
        });
        const models = catalog.map((model) => ({
          id: model.id,
          title: model.title,
          category: model.category,
          required: model.required,
          inputs: {
            images: inputSlots(model, 'image').length,
            videos: inputSlots(model, 'video').length,
            audios: inputSlots(model, 'audio').length,
          },
          parameters: model.parameters.map((parameter) => ({
            name: parameter.name,
            type: parameter.type,
            required: parameter.required === true,
            ...(parameter.format ? { format: parameter.format } : {}),
            ...(parameter.enum ? { values: parameter.enum } : {}),
            ...(parameter.minimum === undefined ? {} : { minimum: parameter.minimum }),
            ...(parameter.maximum === undefined ? {} : { maximum: parameter.maximum }),
            ...(parameter.default === undefined ? {} : { default: parameter.default }),
          })),
        }));
        const lines = models.map(
          (model) => `- ${model.id} (${model.category}): requires ${model.required.join(', ') || 'nothing'}`,
        );
        return {
          content: [{ type: 'text', text: `${models.length} video models:\n${lines.join('\n')}` }],
          structuredContent: { models },
        };
      } catch (error) {
        return toolErrorFor(error, deps);
      }
    },
});
