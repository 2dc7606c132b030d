/**
 * Subtitle writers shared by the servers that export timed text (meeting transcripts today, narrated media
 * later). SRT: 1-based counters, `HH:MM:SS,mmm`. WebVTT: `WEBVTT` header, `HH:MM:SS.mmm`, speaker as a
 * voice tag.
 */

export interface SubtitleCue {
  /** Seconds from the start. */
  start: number;
  /** Seconds from the start; clamped to at least `start`. */
  end: number;
  text: string;
  /** Display name of the speaker, when known. */
  speaker?: string | undefined;
}

/** 3723.5 → "01:02:03,500" (SRT) or "01:02:03.500" (VTT). Negative and non-finite values become 0. */
export function formatSubtitleTimestamp(seconds: number, separator: ',' | '.'): string {
  const totalMs = Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0;
  const ms = totalMs % 1000;
  const totalSeconds = Math.floor(totalMs / 1000);
  const s = totalSeconds % 60;
  const m = Math.floor(totalSeconds / 60) % 60;
  const h = Math.floor(totalSeconds / 3600);
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${separator}${pad(ms, 3)}`;
}

export function formatSrt(cues: readonly SubtitleCue[]): string {
  return cues
    .map((cue, index) => {
      const text = oneBlock(cue.text);
      const line = cue.speaker ? `${cue.speaker}: ${text}` : text;
      return `${index + 1}\n${timing(cue, ',')}\n${line}\n`;
    })
    .join('\n');
}

export function formatVtt(cues: readonly SubtitleCue[]): string {
  const blocks = cues.map((cue) => {
    const text = escapeVtt(oneBlock(cue.text));
    const line = cue.speaker ? `<v ${escapeVtt(cue.speaker).replace(/>/g, '')}>${text}` : text;
    return `${timing(cue, '.')}\n${line}\n`;
  });
  return ['WEBVTT\n', ...blocks].join('\n');
}

function timing(cue: SubtitleCue, separator: ',' | '.'): string {
  const end = Math.max(cue.end, cue.start);
  return `${formatSubtitleTimestamp(cue.start, separator)} --> ${formatSubtitleTimestamp(end, separator)}`;
}

/** A blank line ends a cue in both formats, so cue text must not contain one. */
function oneBlock(text: string): string {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.length > 0 ? lines.join('\n') : ' ';
}

function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/-->/g, '--&gt;');
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
