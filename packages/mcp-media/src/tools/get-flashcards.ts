/**
 * get_flashcards: the state or result of a flashcards job, waiting up to waitSeconds.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createWaitSecondsSchema } from '@polymodal/mcp-common';
import { z } from 'zod';
import { flashcardsOutcomeShape, waitForFlashcards } from './flashcards-result.js';
import { type MediaToolDeps, mediaToolError } from './media-tool-deps.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getFlashcardsInput = {
  jobId: z.string().min(1).describe('The vf_... jobId create_flashcards returned.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export function registerGetFlashcards(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'get_flashcards',
    {
      title: 'Get video flashcards',
      description:
        'Shows a flashcards job started by create_flashcards (stage and percent while it runs) and waits up to waitSeconds (default 40) for it to finish. When done, returns the segments with translations and words, and saves the full result as JSON into the output directory. Reading is free; it never starts a new job.',
      inputSchema: getFlashcardsInput,
      outputSchema: flashcardsOutcomeShape,
      annotations: {
        title: 'Get video flashcards',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
    },
    async (args, extra) => {
      try {
        return await waitForFlashcards(deps, { jobId: args.jobId, waitSeconds: args.waitSeconds, extra });
      } catch (error) {
        return mediaToolError(error, deps, { jobId: args.jobId });
      }
    },
  );
}
