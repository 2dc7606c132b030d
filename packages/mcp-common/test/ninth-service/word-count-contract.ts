/**
 * Wire contracts of the toy word-count service, as core keeps each service's (src/contracts/<service>.ts):
 * strict for the request we build (a field the service does not know is our mistake, refused before
 * sending), loose for responses (fields the spec does not show pass through, and a new status still parses).
 */
import { z } from 'zod';
import { WORD_COUNT_MAX_CHARACTERS } from './word-count-job.js';

// #region contract
export const WordCountRequest = z.strictObject({
  text: z
    .string()
    .max(WORD_COUNT_MAX_CHARACTERS)
    .refine((text) => text.trim() !== '', 'needs at least one word'),
});
export type WordCountRequest = z.infer<typeof WordCountRequest>;

/** The POST's answer (`id`, `status`) and every read of the job. */
export const WordCountJob = z.looseObject({
  id: z.string(),
  status: z.string(),
  progress: z.number().optional(),
  words: z.number().int().optional(),
  error: z.string().nullable().optional(),
});
export type WordCountJob = z.infer<typeof WordCountJob>;
// #endregion
