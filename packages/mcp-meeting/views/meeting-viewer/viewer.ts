/**
 * What every part of the meeting viewer shares: the view's `App`, its elements and its state, one object
 * (`Viewer`) handed to each part; and the types of the results it shows, from the tools' output schemas.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { type JobFacts, textOf } from '@polymodal/mcp-common/views';
import type { z } from 'zod';
// Types only: the meeting tools' output schemas, so that nothing of the server is bundled.
import type { jobDetailsShape, SegmentOutput, SummaryOutput } from '../../src/presenters/meeting-schemas.js';
import type { ViewerElements } from './elements.js';

/** A summarize_meeting / get_meeting result: the long-job fields, the job's details and its summary. */
export type MeetingResult = JobFacts &
  Partial<z.output<z.ZodObject<typeof jobDetailsShape>>> & { summary?: Partial<SummaryOutput> };

export type Track = 'transcript' | 'translation';

/** A meeting_view_page result (an app-only tool with no output schema of its own). */
export interface Page {
  status: string;
  track: Track;
  hasTranslation: boolean;
  total: number;
  matched: number;
  nextFrom: number | null;
  segments: SegmentOutput[];
  canPlayRecording: boolean;
  speakers?: { id: string; name: string; seconds: number; share: number }[];
  timeline?: [number, number, number][];
  durationSeconds?: number;
}

export interface ViewerState {
  job: {
    id: string | undefined;
    /** Whether get_meeting is being called to follow the running job. */
    following: boolean;
    /** The job whose summary and transcript are shown. */
    shown: string | undefined;
  };
  listing: {
    track: Track;
    query: string;
    nextFrom: number | null;
    /** Bumped by every new listing, so that a slow answer for an old search does not land in a new one. */
    generation: number;
    searchTimer: ReturnType<typeof setTimeout> | undefined;
  };
  recording: {
    /** The local recording summarize_meeting was given, when it was one; played once the server serves it. */
    path: string | undefined;
    canPlay: boolean;
    loaded: Promise<void> | undefined;
  };
  /** Each speaker's colour, by id, from the first page's speakers (their order of first speaking). */
  speakerColors: Map<string, string>;
}

export interface Viewer {
  app: App;
  elements: ViewerElements;
  state: ViewerState;
}

export function createViewerState(): ViewerState {
  return {
    job: { id: undefined, following: false, shown: undefined },
    listing: { track: 'transcript', query: '', nextFrom: null, generation: 0, searchTimer: undefined },
    recording: { path: undefined, canPlay: false, loaded: undefined },
    speakerColors: new Map(),
  };
}

/** A tool's answer: the structured result, or the tool's own words when it failed. */
export async function call<T>(app: App, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await app.callServerTool({ name, arguments: args });
  if (result.isError) throw new Error(textOf(result) || `${name} failed`);
  return result.structuredContent as T;
}

/** "1:05" or "1:02:05" */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
