/**
 * The toy word-count service's two tools, written as a server's tool files are (one definition each, the
 * handler a function of the group's dependencies): `count_words` starts the paid job and waits up to
 * `waitSeconds`; `get_word_count` continues the wait. Both answer through `respondWithJob`, failures
 * through `toolErrorFor`. A real server's tools find the client at `deps.platform.client.<service>`; the
 * toy's is `deps.wordCount`, which its group builds (word-count-group.ts).
 */
import {
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  type JobPollRequest,
  jobOutputSchema,
  PLATFORM_WORK_ANNOTATIONS,
  type PresentedJob,
  READ_ONLY_ANNOTATIONS,
  respondWithJob,
  type ToolDeps,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import type { WordCountClient } from './word-count-client.js';
import type { WordCountJob } from './word-count-contract.js';
import { GET_WORD_COUNT_TOOL, WORD_COUNT_MAX_CHARACTERS, wordCountJobView } from './word-count-job.js';

/** What the word-count tools need: the common context and the service's client. */
export type WordCountToolDeps = ToolDeps & { wordCount: WordCountClient };

// #region answer
/** How both tools read, show and continue a job: the parts of `respondWithJob` they share. */
function answerAbout(deps: WordCountToolDeps, jobId: string) {
  return {
    jobId,
    poll: (request: JobPollRequest<WordCountJob>) => deps.wordCount.poll(jobId, request),
    view: wordCountJobView,
    waitTool: GET_WORD_COUNT_TOOL,
    present: (job: WordCountJob, done: boolean): PresentedJob => {
      if (!done) return { text: `Word count ${job.id} is ${job.status}.` };
      if (job.status !== 'done' || job.words === undefined) {
        return {
          text: `Word count ${job.id} ended ${job.status}: ${job.error ?? 'no reason given'}.`,
          next: 'check the text, then call count_words again with newJob=true (costs again)',
        };
      }
      return { text: `The text has ${job.words} words.`, structured: { words: job.words } };
    },
  };
}
// #endregion

// #region count-words
// Built once per process: every server instance (one per HTTP request or session) registers these objects.
const countWordsInput = {
  text: z.string().min(1).max(WORD_COUNT_MAX_CHARACTERS),
  newJob: z.boolean().default(false).describe('Pay again for a new job.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export const countWordsTool = defineTool({
  name: 'count_words',
  title: 'Count words',
  description:
    'Counts the words of a text on the platform (a toy service for tests; about 5 s). Costs credits; the same ' +
    'text again continues the recorded job free. Waits up to waitSeconds; if done=false: get_word_count.',
  inputSchema: countWordsInput,
  outputSchema: jobOutputSchema,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  handler: (deps: WordCountToolDeps) => async (args, extra) => {
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    try {
      const started = await deps.wordCount.start(args.text, {
        signal: extra.signal,
        deadline: deadline.at,
        forceNew: args.newJob,
      });
      return await respondWithJob({
        ...answerAbout(deps, started.id),
        extra,
        waitSeconds: args.waitSeconds,
        deadline: deadline.at,
        known: { status: started.status },
        structured: { resumed: started.resumed },
      });
    } catch (error) {
      return toolErrorFor(error, deps);
    } finally {
      deadline.dispose();
    }
  },
});
// #endregion

const getWordCountInput = {
  jobId: z.string().min(1),
  waitSeconds: createWaitSecondsSchema(0),
};

export const getWordCountTool = defineTool({
  name: GET_WORD_COUNT_TOOL,
  title: 'Get a word count',
  description:
    'The state of a count_words job, or its count once done, waiting up to waitSeconds. Free. ' +
    'If done=false: call again with the same jobId.',
  inputSchema: getWordCountInput,
  outputSchema: jobOutputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  handler: (deps: WordCountToolDeps) => async (args, extra) => {
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    try {
      return await respondWithJob({
        ...answerAbout(deps, args.jobId),
        extra,
        waitSeconds: args.waitSeconds,
        deadline: deadline.at,
      });
    } catch (error) {
      return toolErrorFor(error, deps, { jobId: args.jobId });
    } finally {
      deadline.dispose();
    }
  },
});
