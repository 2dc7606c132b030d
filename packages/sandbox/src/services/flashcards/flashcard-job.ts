/**
 * A flashcards job: where its video came from, the stages it goes through (planned once at creation, from
 * the video's length and the options) and how it ends. Progress is read off the clock, never stored.
 */
import { scaled, type TimelinePhase } from '../../media/job-timeline.js';
import { CANCEL_MARKER, FAIL_MARKER, hasMarker } from '../../media/media-request.js';
import type { FlashcardMaterial } from './build-flashcards.js';
import type { FlashcardOptions } from './flashcard-options.js';

export type Stage =
  | 'queued'
  | 'downloading'
  | 'separating_vocals'
  | 'asr'
  | 'translating'
  | 'extracting_words'
  | 'cutting_segments'
  | 'rendering';

export type Outcome = 'done' | 'failed' | 'cancelled';

/** Bytes per second assumed when a container's duration cannot be read (2 Mbit/s). */
export const ESTIMATE_BYTES_PER_SECOND = 250_000;

export const STAGE_MESSAGES: Record<Stage | Outcome, string> = {
  queued: 'Waiting for a worker',
  downloading: 'Downloading the video',
  separating_vocals: 'Separating vocals from background audio',
  asr: 'Transcribing the source language',
  translating: 'Translating to the target language',
  extracting_words: 'Extracting word-level vocabulary',
  cutting_segments: 'Cutting source clips',
  rendering: 'Rendering word-card overlays',
  done: 'Flashcards are ready',
  failed: 'Processing failed',
  cancelled: 'The job was cancelled',
};

export interface VideoSource {
  kind: 'upload' | 'youtube' | 'direct_video_url';
  /** What makes two starts "the same video" for idempotency. */
  fingerprint: string;
  title: string;
  durationSeconds: number;
  sourceUrl: string | null;
  /** The stored upload, served back as the original video. */
  file: { path: string; size: number; name: string } | undefined;
  /** Where a fail or cancel marker is looked for (file name or URL). */
  marker: string;
}

export interface FlashcardJob {
  id: string;
  userId: string;
  key: string;
  createdAt: number;
  options: FlashcardOptions;
  source: VideoSource;
  phases: TimelinePhase<Stage>[];
  outcome: Outcome;
  /** Built on the first look at a finished job, then kept so every look answers the same. */
  material: FlashcardMaterial | undefined;
  urls:
    | { original: string | null; clips: { original: string | null; rendered: string | null }[] }
    | undefined;
}

/** The outcome a source's marker asks for: cancel wins over fail. */
export function outcomeOf(source: VideoSource): Outcome {
  if (hasMarker(source.marker, CANCEL_MARKER)) return 'cancelled';
  if (hasMarker(source.marker, FAIL_MARKER)) return 'failed';
  return 'done';
}

export interface PlanStagesOptions {
  options: FlashcardOptions;
  source: VideoSource;
  outcome: Outcome;
  speed: number;
}

/** Stage lengths grow with the video's minutes; stages the options turn off are left out. */
export function planStages({ options, source, outcome, speed }: PlanStagesOptions): TimelinePhase<Stage>[] {
  const minutes = source.durationSeconds / 60;
  const phases: TimelinePhase<Stage>[] = [{ name: 'queued', ms: scaled(1, speed) }];
  if (source.kind !== 'upload') phases.push({ name: 'downloading', ms: scaled(1 + minutes, speed) });
  if (!options.skipVocalSeparation)
    phases.push({ name: 'separating_vocals', ms: scaled(1 + minutes, speed) });
  phases.push({ name: 'asr', ms: scaled(1 + 2 * minutes, speed) });
  // A job that fails or is cancelled stops during recognition.
  if (outcome !== 'done') return phases;
  phases.push(
    { name: 'translating', ms: scaled(1, speed) },
    { name: 'extracting_words', ms: scaled(0.5, speed) },
  );
  phases.push({ name: 'cutting_segments', ms: scaled(0.5 + minutes, speed) });
  if (options.includeRenderedSegments) phases.push({ name: 'rendering', ms: scaled(1 + 2 * minutes, speed) });
  return phases;
}
