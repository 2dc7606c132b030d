/**
 * list_video_models: the catalog video service's models with what each needs, so an agent can build a
 * generate_video call that passes validation.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { inputSlots } from '@polymodal/core';
import { READ_ONLY_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { type MediaToolDeps, mediaToolError } from './media-tool-deps.js';

const parameterShape = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
  format: z.string().optional(),
  values: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.unknown().optional(),
});

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const listVideoModelsInput = {
  refresh: z.boolean().default(false).describe('Read the catalog again instead of the 5-minute cache.'),
};

const listVideoModelsOutput = {
  models: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      category: z.string(),
      required: z.array(z.string()),
      inputs: z.object({ images: z.number(), videos: z.number(), audios: z.number() }),
      parameters: z.array(parameterShape),
    }),
  ),
};

export function registerListVideoModels(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'list_video_models',
    {
      title: 'List video models',
      description:
        'Lists the catalog video models (for generate_video): id, category (e.g. text-to-video, image-to-video), required fields, and every parameter with its type, allowed values and range. Image, video and audio inputs fill the parameters with format "uri". Free; no job is started.',
      inputSchema: listVideoModelsInput,
      outputSchema: listVideoModelsOutput,
      annotations: { title: 'List video models', ...READ_ONLY_ANNOTATIONS },
    },
    async ({ refresh }, extra) => {
      try {
        const catalog = await deps.context.polymodal.catalogVideo.models({
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
        return mediaToolError(error, deps);
      }
    },
  );
}
