import { describe, expect, it } from 'vitest';
import { buildSummary, resolveDueDate } from './build-summary.js';

const segment = (index: number, speakerId: string, text: string) => ({
  id: `seg_000${index}`,
  start: index,
  end: index + 1,
  speakerId,
  text,
});

describe('resolveDueDate', () => {
  // 2025-03-12 is a Wednesday.
  const meeting = new Date('2025-03-12T10:00:00Z');
  it('resolves weekdays to the next such day after the meeting', () => {
    expect(resolveDueDate('I will do it by Friday.', meeting)).toBe('2025-03-14');
    expect(resolveDueDate('by Wednesday', meeting)).toBe('2025-03-19');
  });
  it('resolves month and day, and keeps ISO dates', () => {
    expect(resolveDueDate('by April 2nd', meeting)).toBe('2025-04-02');
    expect(resolveDueDate('by January 5', meeting)).toBe('2026-01-05');
    expect(resolveDueDate('due 2025-06-30', meeting)).toBe('2025-06-30');
  });
  it('gives null when no day is named', () => {
    expect(resolveDueDate('I will do it soon.', meeting)).toBeNull();
  });
});

describe('buildSummary', () => {
  it('derives decisions, owned action items and open questions that point at their segments', () => {
    const summary = buildSummary({
      transcript: [
        segment(1, 'S1', 'Hello. We agreed to move the launch.'),
        segment(2, 'S2', "I'll tell the customers by Monday."),
        segment(3, 'S1', 'Is the budget approved?'),
        segment(4, 'S2', 'We agreed to move the launch.'),
      ],
      durationSeconds: 30,
      meetingDate: new Date('2025-03-12T10:00:00Z'),
    });
    expect(summary.decisions).toEqual([
      { text: 'We agreed to move the launch.', segmentIds: ['seg_0001', 'seg_0004'] },
    ]);
    expect(summary.actionItems).toEqual([
      {
        text: 'Tell the customers by Monday',
        segmentIds: ['seg_0002'],
        ownerSpeakerId: 'S2',
        dueDate: '2025-03-17',
      },
    ]);
    expect(summary.openQuestions).toEqual([{ text: 'Is the budget approved?', segmentIds: ['seg_0003'] }]);
    expect(summary.topics.flatMap((topic) => topic.segmentIds)).toEqual([
      'seg_0001',
      'seg_0002',
      'seg_0003',
      'seg_0004',
    ]);
    expect(summary.briefing.followUp).toEqual(['Is the budget approved?']);
  });

  it('says so when there is nothing to summarise', () => {
    const summary = buildSummary({ transcript: [], durationSeconds: 3, meetingDate: new Date() });
    expect(summary.overview).toMatch(/No speech/);
    expect(summary.topics).toEqual([]);
  });
});
