/**
 * get_reading_score: the state or result of a queued reading score, optionally waiting for it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  createToolDeadline,
  createWaitSecondsSchema,
  jobStatusShape,
  READ_ONLY_ANNOTATIONS,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { readingOutcomeShape } from './reading-result.js';
import { waitForTask } from './score-reading.js';
import { type SpeechToolDeps, speechToolError } from './speech-tool-deps.js';

const DESCRIPTION = `Reads a queued reading score by the jobId that score_reading returned with done=false: its state, or the full result once ready. Waits up to waitSeconds (default 0: just look). Free and read-only.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getReadingScoreInput = {
  jobId: z.string().min(1).describe('The jobId (task id) from score_reading.'),
  waitSeconds: createWaitSecondsSchema(0),
};

const getReadingScoreOutput = { ...jobStatusShape, ...readingOutcomeShape };

export function registerGetReadingScore(server: McpServer, deps: SpeechToolDeps): void {
  server.registerTool(
    'get_reading_score',
    {
      title: 'Get a queued reading score',
      description: DESCRIPTION,
      inputSchema: getReadingScoreInput,
      outputSchema: getReadingScoreOutput,
      annotations: {
        title: 'Get a queued reading score',
        ...READ_ONLY_ANNOTATIONS,
      },
    },
    async (args, extra) => {
      const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
      try {
        return await waitForTask(deps, args.jobId, args.waitSeconds, extra, deadline.at);
      } catch (error) {
        return speechToolError(error, deps, { jobId: args.jobId });
      } finally {
        deadline.dispose();
      }
    },
  );
}
