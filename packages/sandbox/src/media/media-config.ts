/**
 * Configuration of the media services (catalog video, image-to-video, video flashcards, speech synthesis):
 * per-key limits and the "public" media the sandbox simulates instead of fetching the internet.
 */
import { z } from 'zod';

export const MEDIA_FIXTURES = ['png', 'jpg', 'webp', 'mp4', 'wav'] as const;
export type MediaFixtureName = (typeof MEDIA_FIXTURES)[number];

/**
 * One simulated remote resource. The sandbox never fetches the network: a remote URL answers only when it
 * is configured here, as a fixture or bytes, a redirect (always refused), an HTTP status, or a host that
 * resolves to a given address (a private one is refused like a private literal).
 */
export const PublicMediaEntry = z
  .strictObject({
    fixture: z.enum(MEDIA_FIXTURES).optional(),
    base64: z.string().optional(),
    contentType: z.string().min(1).optional(),
    /** Size the server announces (Content-Length), to test limits without allocating the bytes. */
    sizeBytes: z.number().int().positive().optional(),
    redirect: z.string().min(1).optional(),
    status: z.number().int().min(200).max(599).optional(),
    resolvesTo: z.string().min(1).optional(),
    /** Duration of a video resource when it should differ from the fixture's. */
    durationSeconds: z.number().positive().optional(),
    title: z.string().min(1).optional(),
  })
  .refine(
    (entry) =>
      entry.fixture !== undefined ||
      entry.base64 !== undefined ||
      entry.redirect !== undefined ||
      entry.status !== undefined ||
      entry.durationSeconds !== undefined,
    'give one of fixture, base64, redirect, status or durationSeconds (a YouTube video)',
  );
export type PublicMediaEntry = z.infer<typeof PublicMediaEntry>;

const MediaKey = z
  .string()
  .refine(
    (key) => /^https?:\/\/[^/]/i.test(key) || /^\/uploads\/[^/]/.test(key),
    'keys are absolute http(s) URLs or same-site /uploads/... paths',
  );

export const SpeechSynthesisLimits = z.strictObject({
  /** Maximum unfinished synthesis jobs per key (the dashboard's `concurrentSessions`). */
  concurrentSessions: z.number().int().min(1).default(3),
  /** Whether clone references are transcribed upstream (when off, model_d clone requests need clone_text). */
  referenceRecognition: z.boolean().default(true),
  /** A status poll of the same task sooner than this (real ms) answers 429; 0 = never. */
  statusMinIntervalMs: z.number().int().min(0).default(0),
  /**
   * Every status answer of an unfinished task carries `Retry-After` of at least this many seconds (the spec
   * sends it "while queued or pending" and does not bound it): a platform that asks for longer pauses than a
   * client's own cadence. 0 = only the time left in the queued phase, as by default.
   */
  statusRetryAfterSeconds: z.number().int().min(0).default(0),
});

export const FlashcardLimits = z.strictObject({
  requestsPerMinute: z.number().int().min(1).default(120),
  concurrentVideoJobs: z.number().int().min(1).default(3),
  dailyVideoMinutes: z.number().positive().default(60),
  maxUploadBytes: z.number().int().positive().default(524_288_000),
  maxVideoDurationSeconds: z.number().positive().default(900),
});

export const VideoLimits = z.strictObject({
  /** Largest input image (JPG, PNG, WEBP), default 25 MiB. */
  maxImageBytes: z
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
});

export const MediaConfig = z.strictObject({
  publicMedia: z.record(MediaKey, PublicMediaEntry).default({}),
  speechSynthesis: SpeechSynthesisLimits.prefault({}),
  flashcards: FlashcardLimits.prefault({}),
  video: VideoLimits.prefault({}),
});
export type MediaConfig = z.input<typeof MediaConfig>;
export type ParsedMediaConfig = z.output<typeof MediaConfig>;
