/**
 * Deterministic transcripts. The sandbox cannot recognise speech: a generated recording's embedded
 * script gives the segments (with its timing); any other file gets sentences from the phrase bank,
 * chosen by a generator seeded with the file's sha256 and spread over the file's real duration.
 * Speakers become `S1`, `S2`, ... and their number respects minSpeakers..maxSpeakers.
 */

import type { RecordingScript } from '../../fixtures/recording-script.js';
import { createPrng, seedFromDigest } from '../../framework/create-prng.js';
import { PHRASE_BANK } from './phrase-bank.js';

export interface TranscriptSegment {
  id: string;
  start: number;
  end: number;
  speakerId: string;
  text: string;
}

export interface BuildTranscriptOptions {
  script: RecordingScript | undefined;
  durationSeconds: number;
  /** sha256 of the file: the seed for recordings without a script. */
  digest: Buffer;
  minSpeakers: number;
  maxSpeakers: number;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function segmentId(index: number): string {
  return `seg_${String(index + 1).padStart(4, '0')}`;
}

/** How many distinct speakers to report: the natural count, clamped to min..max and to the segments. */
function speakerCount(natural: number, segments: number, minSpeakers: number, maxSpeakers: number): number {
  let count = Math.max(natural, minSpeakers, 1);
  if (maxSpeakers > 0) count = Math.min(count, maxSpeakers);
  return Math.max(1, Math.min(count, segments));
}

/**
 * Maps natural speaker indexes onto exactly `count` speakers: extra speakers merge (modulo), missing ones
 * take over the last segment of the busiest speaker, as a diarizer told to find more voices would.
 */
function assignSpeakers(natural: number[], count: number): number[] {
  const assigned = natural.map((speaker) => speaker % count);
  const present = new Set(assigned);
  for (let speaker = 0; speaker < count; speaker++) {
    if (present.has(speaker)) continue;
    const tallies = new Map<number, number>();
    for (const value of assigned) tallies.set(value, (tallies.get(value) ?? 0) + 1);
    const busiest = [...tallies.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
    if (!busiest || busiest[1] < 2) break;
    const index = assigned.lastIndexOf(busiest[0]);
    assigned[index] = speaker;
    present.add(speaker);
  }
  return assigned;
}

function fromScript(script: RecordingScript, durationSeconds: number) {
  const names = new Map<string, number>();
  const raw: { start: number; end: number; speaker: number; text: string }[] = [];
  for (const line of script.lines) {
    const start = round(Math.min(line.start, durationSeconds));
    const end = round(Math.min(Math.max(line.end, line.start), durationSeconds));
    if (!names.has(line.speaker)) names.set(line.speaker, names.size);
    raw.push({ start, end, speaker: names.get(line.speaker)!, text: line.text });
  }
  return { raw, natural: names.size };
}

function fromPhraseBank(digest: Buffer, durationSeconds: number) {
  const random = createPrng(seedFromDigest(digest));
  const natural = 2 + Math.floor(random() * 3);
  const raw: { start: number; end: number; speaker: number; text: string }[] = [];
  if (durationSeconds <= 1.5) {
    raw.push({ start: 0, end: round(durationSeconds), speaker: 0, text: PHRASE_BANK[0]! });
    return { raw, natural: 1 };
  }
  let cursor = Math.min(0.3, durationSeconds / 10);
  let phrase = Math.floor(random() * PHRASE_BANK.length);
  let speaker = 0;
  while (cursor + 1 <= durationSeconds) {
    const end = Math.min(cursor + 3.5 + random() * 4.5, durationSeconds);
    raw.push({
      start: round(cursor),
      end: round(end),
      speaker,
      text: PHRASE_BANK[phrase % PHRASE_BANK.length]!,
    });
    phrase++;
    // Speakers take turns, mostly with someone new, sometimes the same person goes on.
    const turn = raw.length < natural ? raw.length : Math.floor(random() * natural);
    speaker = turn === speaker && random() < 0.7 ? (speaker + 1) % natural : turn;
    cursor = end + 0.4 + random() * 0.8;
  }
  return { raw, natural };
}

export function buildTranscript(options: BuildTranscriptOptions): TranscriptSegment[] {
  const { raw, natural } = options.script
    ? fromScript(options.script, options.durationSeconds)
    : fromPhraseBank(options.digest, options.durationSeconds);
  if (raw.length === 0) return [];
  const count = speakerCount(natural, raw.length, options.minSpeakers, options.maxSpeakers);
  const speakers = assignSpeakers(
    raw.map((segment) => segment.speaker),
    count,
  );
  return raw.map((segment, index) => ({
    id: segmentId(index),
    start: segment.start,
    end: segment.end,
    speakerId: `S${speakers[index]! + 1}`,
    text: segment.text,
  }));
}

/** The default display names: `{S1: 'Speaker 1', ...}` for the speakers of the transcript. */
export function defaultSpeakerNames(transcript: readonly TranscriptSegment[]): Record<string, string> {
  const ids = [...new Set(transcript.map((segment) => segment.speakerId))].sort(
    (a, b) => Number(a.slice(1)) - Number(b.slice(1)),
  );
  return Object.fromEntries(ids.map((id) => [id, `Speaker ${id.slice(1)}`]));
}
