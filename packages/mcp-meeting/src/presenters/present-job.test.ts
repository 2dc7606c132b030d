import { MeetingJob } from '@polymodal/core/contracts';
import { describe, expect, it } from 'vitest';
import { pageSegments, presentSummary } from './present-job.js';
import { renderSummaryMarkdown, renderTranscript } from './render-export.js';

const job = MeetingJob.parse({
  id: 'job_1',
  status: 'COMPLETED',
  progress: 100,
  title: 'Sync',
  transcript: Array.from({ length: 7 }, (_, index) => ({
    id: `seg_${index + 1}`,
    start: index * 10,
    end: index * 10 + 8,
    speakerId: index % 2 === 0 ? 'S1' : 'S2',
    text: `line ${index + 1}`,
  })),
  speakerNames: { S1: 'Alice' },
  summary: {
    overview: 'We met.',
    decisions: [{ text: 'Ship it', segmentIds: ['seg_2'] }],
    actionItems: [
      { text: 'Write notes', segmentIds: ['seg_3'], ownerSpeakerId: 'S1', dueDate: '2025-03-01' },
    ],
    topics: [{ title: 'Launch', segmentIds: ['seg_1'] }],
    openQuestions: [],
  },
});

describe('pageSegments', () => {
  it('returns one page and the index of the next segment', () => {
    const page = pageSegments(job, job.transcript ?? [], { maxSegments: 3 });
    expect(page).toMatchObject({ total: 7, matched: 7, returned: 3, nextSegment: 4 });
    expect(page.segments[0]).toEqual({
      index: 1,
      id: 'seg_1',
      start: 0,
      end: 8,
      speakerId: 'S1',
      speaker: 'Alice',
      text: 'line 1',
    });
    expect(page.segments[1]?.speaker).toBe('S2');
  });

  it('selects by 1-based index range and by overlapping time range', () => {
    const byIndex = pageSegments(job, job.transcript ?? [], {
      segmentRange: { from: 6, to: 7 },
      maxSegments: 50,
    });
    expect(byIndex.segments.map((segment) => segment.index)).toEqual([6, 7]);
    expect(byIndex.nextSegment).toBeNull();
    const byTime = pageSegments(job, job.transcript ?? [], {
      timeRange: { startSeconds: 15, endSeconds: 31 },
      maxSegments: 1,
    });
    expect(byTime).toMatchObject({ matched: 3, returned: 1, nextSegment: 3 });
    expect(byTime.segments[0]?.id).toBe('seg_2');
  });
});

describe('presentSummary', () => {
  it('names action item owners with the speaker names', () => {
    expect(presentSummary(job)?.actionItems[0]).toMatchObject({ owner: 'Alice', ownerSpeakerId: 'S1' });
  });
});

describe('exports', () => {
  it('renders the summary as Markdown with segment references and times', () => {
    const markdown = renderSummaryMarkdown(job);
    expect(markdown).toContain('# Sync\n');
    expect(markdown).toContain('- [ ] Write notes — owner: Alice, due: 2025-03-01 _(seg_3 @ 00:00:20)_');
    expect(markdown).toContain('- Launch _(seg_1 @ 00:00:00)_');
    expect(markdown).toContain('## Open questions\n\n_None._');
  });

  it('renders a transcript as Markdown with speaker names', () => {
    const markdown = renderTranscript(job, (job.transcript ?? []).slice(0, 1), {
      format: 'md',
      heading: 'Sync',
    });
    expect(markdown).toBe('# Sync\n\n**Alice** `00:00:00–00:00:08` line 1\n');
  });
});
