/**
 * make_video: a short video from an idea, with a text-to-video model of the catalog.
 */
import { inputSlots } from '@polymodal/core/constants';
import {
  type CompletionSource,
  definePrompt,
  matching,
  quoted,
  type ToolDeps,
  userMessage,
} from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in: the idea, free text,
// comes last and may be left out (the model then asks for it).
const makeVideoArgs = {
  model: z
    .string()
    .optional()
    .describe('A text-to-video model of the catalog (its id); if left out, one is picked from the catalog.'),
  idea: z.string().optional().describe('What the video shows; if left out, you are asked for it.'),
};

/** How long a completion waits for the catalog (the host is waiting while a person types). */
const CATALOG_COMPLETION_MS = 1_000;

/**
 * The catalog's models that make a video from text alone (no image, video or audio input), as the person
 * types an id. Reading the catalog is free; the client keeps it for a few minutes, so only the first
 * completion of a process waits for the platform.
 */
const textToVideoModels: CompletionSource<ToolDeps> = async ({ value, deps, signal }) => {
  const client = await deps.platform.loadClient();
  const catalog = await client.catalogVideo.models({ signal, deadline: Date.now() + CATALOG_COMPLETION_MS });
  const fromText = catalog.filter((model) =>
    (['image', 'video', 'audio'] as const).every((kind) => inputSlots(model, kind).length === 0),
  );
  return matching(
    fromText.map((model) => model.id),
    value,
  );
};

export const makeVideoPrompt = definePrompt({
  name: 'make_video',
  title: 'A video from an idea',
  description:
    'Generates a short video from an idea with a text-to-video model of the catalog, and saves it as an MP4 file. Costs credits per video.',
  uses: ['list_video_models', 'generate_video', 'get_video_job'],
  args: makeVideoArgs,
  complete: { model: textToVideoModels },
  messages: ({ model, idea }) => [
    userMessage(
      [
        'Make a short video and save it.',
        idea === undefined
          ? '0. First ask me what the video should show, and wait for my answer; use it as "prompt" below.'
          : `The video shows ${quoted(idea)}.`,
        model === undefined
          ? '1. Call list_video_models and pick a text-to-video model: one that requires nothing but a prompt.'
          : `1. Call list_video_models and read the parameters of the model ${quoted(model)} (its durations, resolutions and aspect ratios).`,
        `2. Call generate_video with ${quoted({ model, prompt: idea })}${model === undefined ? ', adding the model you picked as "model"' : ''}${idea === undefined ? ', adding my answer as "prompt"' : ''}, and only parameters the model lists (its shortest duration unless I asked for another).`,
        '3. While a result says done=false, call get_video_job with its jobId and "waitSeconds": 40, until done=true. Do not call generate_video again for this idea: a new video would be paid twice.',
        '4. Hand back the saved video as the result names it, and its length.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
