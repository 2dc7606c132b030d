/**
 * Output shapes shared by the meeting tools. Items of the summary are loose: the spec fixes only their
 * reference to transcript segment ids, so whatever else the platform sends passes through.
 */
import { z } from 'zod';

export const summaryItemSchema = z.looseObject({
  text: z.string().optional(),
  segmentIds: z.array(z.string()).describe('Transcript segment ids this item is based on.'),
});

export const actionItemSchema = z.looseObject({
  text: z.string(),
  segmentIds: z.array(z.string()),
  ownerSpeakerId: z.string().nullable(),
  owner: z.string().nullable().describe('Display name of the owner (speaker names applied).'),
  dueDate: z.string().nullable(),
});

export const summarySchema = z.object({
  overview: z.string(),
  topics: z.array(summaryItemSchema),
  decisions: z.array(summaryItemSchema),
  actionItems: z.array(actionItemSchema),
  openQuestions: z.array(summaryItemSchema),
  briefing: z.unknown().optional(),
});

export type SummaryOutput = z.infer<typeof summarySchema>;

export const countsSchema = z.object({
  segments: z.number().int(),
  speakers: z.number().int(),
  topics: z.number().int(),
  decisions: z.number().int(),
  actionItems: z.number().int(),
  openQuestions: z.number().int(),
});

export type CountsOutput = z.infer<typeof countsSchema>;

export const segmentSchema = z.object({
  index: z.number().int().describe('1-based position in the transcript.'),
  id: z.string(),
  start: z.number(),
  end: z.number(),
  speakerId: z.string(),
  speaker: z.string().describe('Display name (speaker names applied).'),
  text: z.string(),
});

export type SegmentOutput = z.infer<typeof segmentSchema>;

export const segmentPageSchema = z.object({
  total: z.number().int().describe('Number of segments in the whole transcript.'),
  matched: z.number().int().describe('Segments matching the requested range.'),
  returned: z.number().int(),
  nextSegment: z
    .number()
    .int()
    .nullable()
    .describe('1-based index to pass as segmentRange.from for the next page; null when nothing is left.'),
  segments: z.array(segmentSchema),
});

export type SegmentPageOutput = z.infer<typeof segmentPageSchema>;

/** Job fields shown by several tools (absent from a handle given before the job could be read). */
export const jobDetailsShape = {
  title: z.string().nullable().optional(),
  credits: z
    .number()
    .nullable()
    .optional()
    .describe('Credits this recording costs (charged once, on success).'),
  creditsCharged: z.boolean().optional(),
  warning: z.string().nullable().optional().describe('Set when results are partial.'),
  errorMessage: z.string().nullable().optional().describe('Set when the job FAILED.'),
};
