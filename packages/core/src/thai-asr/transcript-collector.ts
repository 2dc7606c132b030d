/**
 * What a transcription keeps of the server's events, by the spec's rule: the transcript comes only from
 * `final`; captions are the stabilized partial when there is one, otherwise the partial; and the newest
 * partial since the last final is kept, so that a session the deadline (or a stalled server) ends first
 * still returns the text it had, flagged incomplete.
 */
import type { ThaiAsrEvent } from '../contracts/thai-asr.js';
import type { StreamProgress } from './stream-audio.js';
import type { TranscribeOptions, TranscribeResult } from './thai-asr-types.js';

export interface TranscriptCollector {
  /** Feeds one server event (in order). */
  onEvent(event: ThaiAsrEvent): void;
  /** The result once the session is over. */
  result(session: {
    sessionId: string;
    sampleRate: number;
    progress: StreamProgress;
    /** Samples the input holds, when known. */
    expectedSamples: number | undefined;
    incompleteReason: TranscribeResult['incompleteReason'];
    skippedEvents: number;
  }): TranscribeResult;
}

export function createTranscriptCollector(
  request: Pick<TranscribeOptions, 'onPartial' | 'onCaption' | 'onEvent'>,
): TranscriptCollector {
  const finals: ThaiAsrEvent[] = [];
  /** The newest partial hypothesis since the last final: the text an incomplete result ends with. */
  let hypothesis: ThaiAsrEvent | undefined;
  let heardMs = 0;
  let stabilized = '';
  const onPartial = request.onPartial ?? request.onCaption;
  return {
    onEvent(event) {
      request.onEvent?.(event);
      if (typeof event.audio_ms === 'number') heardMs = Math.max(heardMs, event.audio_ms);
      if (event.type === 'final') {
        finals.push(event);
        hypothesis = undefined;
        stabilized = '';
        return;
      }
      if (!event.text) return;
      if (event.type === 'stabilized_partial') {
        stabilized = event.text;
        hypothesis = event;
        onPartial?.(event.text, event);
      } else if (event.type === 'partial') {
        hypothesis = event;
        if (event.text !== stabilized) onPartial?.(event.text, event);
      }
    },
    result({ sessionId, sampleRate, progress, expectedSamples, incompleteReason, skippedEvents }) {
      const audioSeconds = progress.sentSamples / sampleRate;
      const final = finals.at(-1);
      const pieces = [...finals, ...(hypothesis ? [hypothesis] : [])];
      const segments = pieces.flatMap((event) => event.segments ?? []);
      const lastSegmentEnd = segments.at(-1)?.end ?? 0;
      // A final covers everything sent before `end`; a partial only what the server says it has heard.
      const heardSeconds =
        incompleteReason === undefined || (final && !hypothesis) ? audioSeconds : heardMs / 1000;
      // Once the input ran out, what was sent is exactly what it held.
      const totalSamples = progress.ended
        ? progress.sentSamples
        : Math.max(expectedSamples ?? 0, progress.sentSamples);
      return {
        sessionId,
        text: pieces
          .map((event) => event.text ?? '')
          .filter((text) => text !== '')
          .join(' '),
        segments,
        audioSeconds,
        totalAudioSeconds: totalSamples / sampleRate,
        coveredSeconds: Math.min(audioSeconds, Math.max(heardSeconds, lastSegmentEnd)),
        complete: incompleteReason === undefined,
        ...(incompleteReason === undefined ? {} : { incompleteReason }),
        skippedEvents,
        final,
      };
    },
  };
}
