import { MeetingJob } from '@polymodal/core/contracts';
import { describe, expect, it } from 'vitest';
import { exportFileName } from './export-meeting.js';

const job = MeetingJob.parse({ id: 'job_42', status: 'COMPLETED', title: 'Q3 / planning: "final"' });

describe('exportFileName', () => {
  it('derives a single safe file name from the title', () => {
    expect(exportFileName(job, 'transcript', 'srt')).toBe('Q3-planning-final-transcript.srt');
  });

  it('keeps a requested name inside one directory and adds the extension once', () => {
    expect(exportFileName(job, 'summary', 'md', '../../etc/passwd')).toBe('etc-passwd.md');
    expect(exportFileName(job, 'summary', 'md', 'notes.md')).toBe('notes.md');
    expect(exportFileName(job, 'summary', 'md', '..')).toBe('meeting-summary.md');
  });

  it('falls back to the job id without a title', () => {
    expect(exportFileName(MeetingJob.parse({ id: 'job_7', status: 'COMPLETED' }), 'translation', 'vtt')).toBe(
      'job_7-translation.vtt',
    );
  });
});
