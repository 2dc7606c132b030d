/**
 * Server-side validation of the meeting service's JSON requests, per the spec's tables: strict (unknown
 * fields are refused), with messages that name the field and the rule.
 */
import { MEETING_ASR_ENGINES, MEETING_LANGUAGES } from '@polymodal/core/constants';
import { z } from 'zod';
import { HttpError } from '../../framework/http-error.js';

const language = z.enum(MEETING_LANGUAGES, { error: `must be one of ${MEETING_LANGUAGES.join(', ')}` });
const speakers = z
  .number({ error: 'must be an integer from 0 to 30' })
  .int('must be an integer from 0 to 30')
  .min(0, 'must be an integer from 0 to 30')
  .max(30, 'must be an integer from 0 to 30');

export const CreateJobBody = z
  .strictObject({
    uploadReceipt: z
      .string({ error: 'is required (the uploadReceipt string from the upload)' })
      .min(1, 'must not be empty'),
    sourceLanguage: z.enum(['auto', ...MEETING_LANGUAGES], {
      error: `is required: auto or one of ${MEETING_LANGUAGES.join(', ')}`,
    }),
    targetLanguage: z.enum(MEETING_LANGUAGES, {
      error: `is required: one of ${MEETING_LANGUAGES.join(', ')} (auto is not supported)`,
    }),
    asrEngine: z
      .enum(MEETING_ASR_ENGINES, { error: `must be ${MEETING_ASR_ENGINES.join(' or ')}` })
      .optional(),
    noiseReduction: z.boolean({ error: 'must be a boolean' }).optional(),
    minSpeakers: speakers.optional(),
    maxSpeakers: speakers.optional(),
  })
  .refine((body) => !body.maxSpeakers || (body.minSpeakers ?? 0) <= body.maxSpeakers, {
    message: 'must not exceed maxSpeakers when maxSpeakers is nonzero',
    path: ['minSpeakers'],
  });
export type CreateJobBody = z.infer<typeof CreateJobBody>;

export const MEETING_ACTIONS = ['cancel', 'retry', 'resummarize', 'retranslate'] as const;
export type MeetingActionName = (typeof MEETING_ACTIONS)[number];

export const ActionBody = z
  .strictObject({
    action: z.enum(MEETING_ACTIONS, { error: `must be one of ${MEETING_ACTIONS.join(', ')}` }),
    targetLanguage: language.optional(),
  })
  .refine((body) => body.action === 'retranslate' || body.targetLanguage === undefined, {
    message: 'is only taken by the retranslate action',
    path: ['targetLanguage'],
  })
  .refine((body) => body.action !== 'retranslate' || body.targetLanguage !== undefined, {
    message: 'is required for retranslate (a language code)',
    path: ['targetLanguage'],
  });
export type ActionBody = z.infer<typeof ActionBody>;

export const UpdateBody = z
  .strictObject({
    title: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .optional(),
    speakerNames: z
      .record(
        z.string(),
        z
          .string({ error: 'each name must be a string' })
          .trim()
          .min(1, 'names must not be empty')
          .max(100, 'names must be at most 100 characters'),
        { error: 'must be an object mapping speaker ids to names' },
      )
      .optional(),
  })
  .refine((body) => body.title !== undefined || body.speakerNames !== undefined, {
    message: 'give a title and/or speakerNames',
  });
export type UpdateBody = z.infer<typeof UpdateBody>;

/** Parses a request body or throws a 400 naming every problem. */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'invalid request: the body must be a JSON object');
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    const field = issue.path.map(String).join('.');
    return field ? `${field} ${issue.message}` : issue.message;
  });
  throw new HttpError(400, `invalid request: ${problems.join('; ')}`);
}
