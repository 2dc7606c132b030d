import { describe, expect, it } from 'vitest';
import { formatSrt, formatSubtitleTimestamp, formatVtt } from './format-subtitles.js';

describe('formatSubtitleTimestamp', () => {
  it('formats hours, minutes, seconds and milliseconds', () => {
    expect(formatSubtitleTimestamp(0, ',')).toBe('00:00:00,000');
    expect(formatSubtitleTimestamp(3723.5, ',')).toBe('01:02:03,500');
    expect(formatSubtitleTimestamp(3723.5, '.')).toBe('01:02:03.500');
    expect(formatSubtitleTimestamp(59.9996, ',')).toBe('00:01:00,000');
    expect(formatSubtitleTimestamp(7199.001, '.')).toBe('01:59:59.001');
    expect(formatSubtitleTimestamp(-3, ',')).toBe('00:00:00,000');
    expect(formatSubtitleTimestamp(Number.NaN, ',')).toBe('00:00:00,000');
  });
});

describe('formatSrt', () => {
  it('writes 1-based numbered cues with comma milliseconds and speakers', () => {
    const srt = formatSrt([
      { start: 0.5, end: 2.25, text: 'Hello everyone.', speaker: 'Alice' },
      { start: 2.25, end: 65, text: 'Line one\n\nline two' },
    ]);
    expect(srt).toBe(
      '1\n00:00:00,500 --> 00:00:02,250\nAlice: Hello everyone.\n\n' +
        '2\n00:00:02,250 --> 00:01:05,000\nLine one\nline two\n',
    );
  });

  it('never writes an end before the start', () => {
    expect(formatSrt([{ start: 5, end: 4, text: 'x' }])).toContain('00:00:05,000 --> 00:00:05,000');
  });
});

describe('formatVtt', () => {
  it('starts with WEBVTT, uses dot milliseconds and voice tags, and escapes markup', () => {
    const vtt = formatVtt([
      { start: 1, end: 2.5, text: 'a < b & c --> d', speaker: 'Bob' },
      { start: 3, end: 4, text: 'plain' },
    ]);
    expect(vtt).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\n<v Bob>a &lt; b &amp; c --&gt; d\n\n00:00:03.000 --> 00:00:04.000\nplain\n',
    );
  });

  it('is just the header for an empty transcript', () => {
    expect(formatVtt([])).toBe('WEBVTT\n');
  });
});
