/**
 * Output shapes shared by the meeting tools. Items of the summary are loose: the spec fixes only their
 * reference to transcript segment ids, so whatever else the platform sends passes through.
 *
 * Terse on purpose (issue 14): they go into every tools/list. No descriptions (the README's Tools section
 * explains the fields), numbers without `.int()` (its JSON Schema bounds cost ~50 bytes each; these are
 * outputs, never parsed from a caller), and a schema used more than once carries an `id`, so its JSON
 * Schema is written once under `definitions` and referenced from each use.
 */
import { z } from 'zod';

export const summaryItemSchema = z.looseObject({
  text: z.string().optional(),
  segmentIds: z.array(z.string()),
});

export const actionItemSchema = z.looseObject({
  text: z.string(),
  segmentIds: z.array(z.string()),
  ownerSpeakerId: z.string().nullable(),
  owner: z.string().nullable(),
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
  segments: z.number(),
  speakers: z.number(),
  topics: z.number(),
  decisions: z.number(),
  actionItems: z.number(),
  openQuestions: z.number(),
});

export type CountsOutput = z.infer<typeof countsSchema>;

export const segmentSchema = z.object({
  /** 1-based position in the transcript. */
  index: z.number(),
  id: z.string(),
  start: z.number(),
  end: z.number(),
  speakerId: z.string(),
  /** Display name (speaker names applied). */
  speaker: z.string(),
  text: z.string(),
});

export type SegmentOutput = z.infer<typeof segmentSchema>;

export const segmentPageSchema = z.object({
  /** Segments in the whole transcript. */
  total: z.number(),
  /** Segments matching the requested range. */
  matched: z.number(),
  returned: z.number(),
  /** 1-based index to pass as segmentRange.from for the next page; null when nothing is left. */
  nextSegment: z.number().nullable(),
  segments: z.array(segmentSchema),
});

export type SegmentPageOutput = z.infer<typeof segmentPageSchema>;

// What tools/list shows of the summary and of a page: the fields an agent reads first, loose so that
// everything the presenters add (topics, decisions, action items, questions, counts, speaker ids) still
// validates. The page schema is used twice (transcript, translation), so it has an `id`: written once under
// `definitions`, referenced from each use.
export const summaryOutputSchema = z.looseObject({ overview: z.string() });

export const segmentPageOutputSchema = z
  .looseObject({
    total: z.number(),
    nextSegment: z.number().nullable(),
    segments: z.array(
      z.looseObject({
        index: z.number(),
        start: z.number(),
        end: z.number(),
        speaker: z.string(),
        text: z.string(),
      }),
    ),
  })
  .meta({ id: 'MeetingSegmentPage' });

/** Job fields shown by several tools (absent from a handle given before the job could be read). */
export const jobDetailsShape = {
  title: z.string().nullable().optional(),
  /** Credits this recording costs (charged once, on success). */
  credits: z.number().nullable().optional(),
  creditsCharged: z.boolean().optional(),
  /** Set when results are partial. */
  warning: z.string().nullable().optional(),
  /** Set when the job FAILED. */
  errorMessage: z.string().nullable().optional(),
};
