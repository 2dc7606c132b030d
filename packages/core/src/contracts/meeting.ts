/**
 * Wire contracts of the meeting summary service (`/api/conference-summary/v1`), from
 * spec/meeting-summary.md. Requests we build are strict; responses are lenient (`looseObject`) because
 * the spec says further fields exist but are "not shown".
 */
import { z } from 'zod';

import { MEETING_LANGUAGES, MeetingAsrEngine, MeetingLanguage } from '../constants/meeting-constants.js';

const speakerCount = z.number().int().min(0).max(30);

/** Job creation request (strict: we never send fields the spec does not define). */
export const CreateMeetingJobRequest = z
  .strictObject({
    uploadReceipt: z.string().min(1),
    // One enum rather than a union: a wrong or missing value then lists every accepted one.
    sourceLanguage: z.enum(['auto', ...MEETING_LANGUAGES]),
    targetLanguage: MeetingLanguage,
    asrEngine: MeetingAsrEngine.optional(),
    noiseReduction: z.boolean().optional(),
    minSpeakers: speakerCount.optional(),
    maxSpeakers: speakerCount.optional(),
  })
  .refine((r) => !r.maxSpeakers || (r.minSpeakers ?? 0) <= r.maxSpeakers, {
    message: 'minSpeakers must not exceed maxSpeakers when maxSpeakers is nonzero',
    path: ['minSpeakers'],
  });
export type CreateMeetingJobRequest = z.infer<typeof CreateMeetingJobRequest>;

export const MeetingAction = z.enum(['cancel', 'retry', 'resummarize', 'retranslate']);
export type MeetingAction = z.infer<typeof MeetingAction>;

export const MeetingActionRequest = z.strictObject({
  action: MeetingAction,
  targetLanguage: MeetingLanguage.optional(),
});
export type MeetingActionRequest = z.infer<typeof MeetingActionRequest>;

export const UpdateMeetingRequest = z
  .strictObject({
    title: z.string().min(1).optional(),
    speakerNames: z.record(z.string(), z.string()).optional(),
  })
  .refine((r) => r.title !== undefined || r.speakerNames !== undefined, {
    message: 'give a title and/or speakerNames',
  });
export type UpdateMeetingRequest = z.infer<typeof UpdateMeetingRequest>;

export const UploadResponse = z.looseObject({ uploadReceipt: z.string().min(1) });
export type UploadResponse = z.infer<typeof UploadResponse>;

export const CreateJobResponse = z.looseObject({ id: z.string().min(1) });
export type CreateJobResponse = z.infer<typeof CreateJobResponse>;

export const SuccessResponse = z.looseObject({ success: z.literal(true) });
export type SuccessResponse = z.infer<typeof SuccessResponse>;

export const TranscriptSegment = z.looseObject({
  id: z.string(),
  start: z.number(),
  end: z.number(),
  speakerId: z.string(),
  text: z.string(),
});
export type TranscriptSegment = z.infer<typeof TranscriptSegment>;

/** Topics, decisions and open questions: only the reference to segment ids is specified. */
export const SummaryItem = z.looseObject({
  text: z.string().optional(),
  segmentIds: z.array(z.string()).default([]),
});
export type SummaryItem = z.infer<typeof SummaryItem>;

export const ActionItem = z.looseObject({
  text: z.string(),
  segmentIds: z.array(z.string()).default([]),
  ownerSpeakerId: z.string().nullish(),
  dueDate: z.string().nullish(),
});
export type ActionItem = z.infer<typeof ActionItem>;

export const MeetingSummary = z.looseObject({
  overview: z.string().default(''),
  topics: z.array(SummaryItem).default([]),
  decisions: z.array(SummaryItem).default([]),
  actionItems: z.array(ActionItem).default([]),
  openQuestions: z.array(SummaryItem).default([]),
  /** Inner structure not shown in the spec: passed through untouched. */
  briefing: z.unknown().optional(),
});
export type MeetingSummary = z.infer<typeof MeetingSummary>;

export const MeetingJob = z.looseObject({
  id: z.string(),
  status: z.string(),
  progress: z.number().default(0),
  credits: z.number().nullish(),
  creditsCharged: z.boolean().default(false),
  title: z.string().nullish(),
  transcript: z.array(TranscriptSegment).nullish(),
  translatedTranscript: z.array(TranscriptSegment).nullish(),
  speakerNames: z.record(z.string(), z.string()).nullish(),
  summary: MeetingSummary.nullish(),
  warning: z.string().nullish(),
  errorMessage: z.string().nullish(),
});
export type MeetingJob = z.infer<typeof MeetingJob>;

export const MeetingJobEnvelope = z.looseObject({ job: MeetingJob });

/**
 * Job list. The spec shows only that it carries the newest 100 recording headers, `maxUploadBytes` and
 * pricing; the header and pricing shapes are "not shown", so we accept the headers under `jobs` (the
 * sandbox's choice) and keep both opaque beyond an id and a status. A body without `jobs` is an error that
 * names the keys it has — never a silent "no recordings", which would hide the platform's real shape.
 */
export const MeetingJobHeader = z.looseObject({
  id: z.string(),
  status: z.string().optional(),
  title: z.string().nullish(),
});
export type MeetingJobHeader = z.infer<typeof MeetingJobHeader>;

export const MeetingJobList = z
  .looseObject({
    jobs: z.array(MeetingJobHeader).optional(),
    maxUploadBytes: z.number().nullish(),
    pricing: z.unknown().optional(),
  })
  .superRefine((value, context) => {
    if (value.jobs === undefined) {
      const keys = Object.keys(value);
      context.addIssue({
        code: 'custom',
        path: ['jobs'],
        message: `no list of recordings under "jobs"; the body has ${keys.length > 0 ? keys.map((key) => JSON.stringify(key)).join(', ') : 'no keys'}`,
      });
    }
  })
  .transform((value) => ({ ...value, jobs: value.jobs ?? [] }));
export type MeetingJobList = z.infer<typeof MeetingJobList>;

export const ErrorBody = z.looseObject({ error: z.string() });
