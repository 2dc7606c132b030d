/**
 * get_reading_score: the state or result of a queued reading score, optionally waiting for it.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  jobOutputSchema,
  READ_ONLY_ANNOTATIONS,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { READING_SCORE_VIEW } from '../views/reading-score-view.js';
import { waitForTask } from './score-reading.js';

const DESCRIPTION = `Reads a queued score_reading job: its state, or the full result once ready. waitSeconds waits (default 0, so the score view's refresh answers at once). Free.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getReadingScoreInput = {
  jobId: z.string().min(1),
  waitSeconds: createWaitSecondsSchema(0),
};

export const getReadingScoreTool = defineTool({
  name: 'get_reading_score',
  title: 'Get a queued reading score',
  description: DESCRIPTION,
  inputSchema: getReadingScoreInput,
  outputSchema: jobOutputSchema,
  asTask: true,
  annotations: READ_ONLY_ANNOTATIONS,
  view: READING_SCORE_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    try {
      return await waitForTask(deps, args.jobId, args.waitSeconds, extra, deadline.at);
    } catch (error) {
      return toolErrorFor(error, deps, { jobId: args.jobId });
    } finally {
      deadline.dispose();
    }
  },
});
