/**
 * get_flashcards: the state or result of a flashcards job, waiting up to waitSeconds.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';
import { FLASHCARD_DECK_VIEW } from '../views/flashcard-deck-view.js';
import { flashcardsOutcomeShape, waitForFlashcards } from './flashcards-result.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getFlashcardsInput = {
  jobId: z.string().min(1),
  waitSeconds: createWaitSecondsSchema(40),
};

export const getFlashcardsTool = defineTool({
  name: 'get_flashcards',
  title: 'Get video flashcards',
  description:
    'Waits (waitSeconds, default 40) on a create_flashcards job; when done, returns the cards and saves them as JSON. Free.',
  inputSchema: getFlashcardsInput,
  outputSchema: flashcardsOutcomeShape,
  asTask: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  view: FLASHCARD_DECK_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      return await waitForFlashcards(deps, { jobId: args.jobId, waitSeconds: args.waitSeconds, extra });
    } catch (error) {
      return toolErrorFor(error, deps, { jobId: args.jobId });
    }
  },
});
