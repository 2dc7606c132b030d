/**
 * The meeting service's constants, languages, states and cost rule, apart from its schemas: code that needs
 * only these (an MCP server listing its tools) does not build them.
 */
import { z } from 'zod';

export const MEETING_LANGUAGES = [
  'zh-cn',
  'zh-tw',
  'en',
  'es',
  'fr',
  'de',
  'ja',
  'ko',
  'pt',
  'ru',
  'ar',
  'it',
  'th',
  'vi',
  'id',
  'tr',
  'pl',
  'nl',
] as const;
export const MeetingLanguage = z.enum(MEETING_LANGUAGES);
export type MeetingLanguage = z.infer<typeof MeetingLanguage>;

export const MEETING_ASR_ENGINES = ['engineone_asr', 'enginetwo_scribe'] as const;
export const MeetingAsrEngine = z.enum(MEETING_ASR_ENGINES);
export type MeetingAsrEngine = z.infer<typeof MeetingAsrEngine>;

/** Accepted recording formats, by file extension (lower case, with the dot). */
export const MEETING_EXTENSIONS = ['.mp4', '.mov', '.avi', '.mkv', '.mp3', '.m4a', '.wav'] as const;
export const MEETING_MAX_DURATION_SECONDS = 2 * 60 * 60;
export const MEETING_RECEIPT_LIFETIME_MS = 2 * 60 * 60 * 1000;
export const MEETING_LIST_LIMIT = 100;
export const MEETING_CREDITS_PER_STARTED_MINUTE = 4;

export const MEETING_STATES = [
  'PENDING',
  'EXTRACTING_AUDIO',
  'CLEANING_AUDIO',
  'TRANSCRIBING',
  'TRANSCRIPT_READY',
  'TRANSLATING',
  'SUMMARIZING',
  'DELETING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type MeetingState = (typeof MEETING_STATES)[number];
export const MEETING_TERMINAL_STATES: readonly MeetingState[] = ['COMPLETED', 'FAILED', 'CANCELLED'];
export function isMeetingTerminal(status: string): boolean {
  return (MEETING_TERMINAL_STATES as readonly string[]).includes(status);
}

/** Cost of a recording per the spec's rule: max(minimum, 4 × started minutes). */
export function meetingCost(durationSeconds: number, minimumCredits: number): number {
  const startedMinutes = Math.max(1, Math.ceil(durationSeconds / 60));
  return Math.max(minimumCredits, MEETING_CREDITS_PER_STARTED_MINUTE * startedMinutes);
}
