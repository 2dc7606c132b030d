/**
 * From a platform job to what a model reads: speaker names applied, summary items with owners, counts,
 * and transcripts in pages (a 2-hour transcript never goes out in one result).
 */
import type { MeetingJob, TranscriptSegment } from '@polymodal/core';
import type { CountsOutput, SegmentOutput, SegmentPageOutput, SummaryOutput } from './meeting-schemas.js';

export function speakerLabel(job: MeetingJob, speakerId: string | null | undefined): string | null {
  if (!speakerId) return null;
  return job.speakerNames?.[speakerId] ?? speakerId;
}

export function jobDetails(job: MeetingJob) {
  return {
    title: job.title ?? null,
    credits: job.credits ?? null,
    creditsCharged: job.creditsCharged,
    warning: job.warning ?? null,
    errorMessage: job.errorMessage ?? null,
  };
}

export function presentSummary(job: MeetingJob): SummaryOutput | undefined {
  const summary = job.summary;
  if (!summary) return undefined;
  return {
    overview: summary.overview,
    topics: summary.topics,
    decisions: summary.decisions,
    actionItems: summary.actionItems.map((item) => ({
      ...item,
      ownerSpeakerId: item.ownerSpeakerId ?? null,
      owner: speakerLabel(job, item.ownerSpeakerId),
      dueDate: item.dueDate ?? null,
    })),
    openQuestions: summary.openQuestions,
    ...(summary.briefing !== undefined ? { briefing: summary.briefing } : {}),
  };
}

export function countItems(job: MeetingJob): CountsOutput {
  const transcript = job.transcript ?? [];
  return {
    segments: transcript.length,
    speakers: new Set(transcript.map((segment) => segment.speakerId)).size,
    topics: job.summary?.topics.length ?? 0,
    decisions: job.summary?.decisions.length ?? 0,
    actionItems: job.summary?.actionItems.length ?? 0,
    openQuestions: job.summary?.openQuestions.length ?? 0,
  };
}

export interface SegmentSelection {
  /** 1-based, inclusive. */
  segmentRange?: { from: number; to?: number | undefined } | undefined;
  /** Seconds; a segment is selected when it overlaps the range. */
  timeRange?: { startSeconds: number; endSeconds?: number | undefined } | undefined;
  /** Words a segment's text or speaker must contain (case-insensitive); the meeting viewer's search. */
  query?: string | undefined;
  maxSegments: number;
}

export function pageSegments(
  job: MeetingJob,
  segments: readonly TranscriptSegment[],
  selection: SegmentSelection,
): SegmentPageOutput {
  const indexed = segments.map((segment, position) => ({ segment, index: position + 1 }));
  let matched = indexed;
  if (selection.segmentRange) {
    const { from, to } = selection.segmentRange;
    matched = matched.filter(({ index }) => index >= from && (to === undefined || index <= to));
  }
  if (selection.timeRange) {
    const { startSeconds, endSeconds } = selection.timeRange;
    matched = matched.filter(
      ({ segment }) => segment.end > startSeconds && (endSeconds === undefined || segment.start < endSeconds),
    );
  }
  const query = selection.query?.trim().toLocaleLowerCase();
  if (query) {
    matched = matched.filter(({ segment }) =>
      `${segment.text}\n${speakerLabel(job, segment.speakerId) ?? ''}`.toLocaleLowerCase().includes(query),
    );
  }
  const page = matched.slice(0, selection.maxSegments);
  const following = matched[page.length];
  return {
    total: segments.length,
    matched: matched.length,
    returned: page.length,
    nextSegment: following ? following.index : null,
    segments: page.map(({ segment, index }) => presentSegment(job, segment, index)),
  };
}

function presentSegment(job: MeetingJob, segment: TranscriptSegment, index: number): SegmentOutput {
  return {
    index,
    id: segment.id,
    start: segment.start,
    end: segment.end,
    speakerId: segment.speakerId,
    speaker: speakerLabel(job, segment.speakerId) ?? segment.speakerId,
    text: segment.text,
  };
}

/** "00:01:05" */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = total % 60;
  return [h, m, s].map((part) => String(part).padStart(2, '0')).join(':');
}

/** Compact text of a summary, for clients that read only the text content. */
export function renderSummaryText(summary: SummaryOutput): string {
  const lines: string[] = [];
  if (summary.overview) lines.push(`Overview: ${summary.overview}`);
  const refs = (ids: readonly string[]) => (ids.length > 0 ? ` [${ids.join(', ')}]` : '');
  const section = (heading: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`${heading}:`);
    for (const item of items) lines.push(`- ${item}`);
  };
  section(
    'Topics',
    summary.topics.map((item) => `${itemText(item)}${refs(item.segmentIds)}`),
  );
  section(
    'Decisions',
    summary.decisions.map((item) => `${itemText(item)}${refs(item.segmentIds)}`),
  );
  section(
    'Action items',
    summary.actionItems.map((item) => {
      const details = [item.owner ? `owner ${item.owner}` : '', item.dueDate ? `due ${item.dueDate}` : '']
        .filter(Boolean)
        .join(', ');
      return `${item.text}${details ? ` (${details})` : ''}${refs(item.segmentIds)}`;
    }),
  );
  section(
    'Open questions',
    summary.openQuestions.map((item) => `${itemText(item)}${refs(item.segmentIds)}`),
  );
  return lines.join('\n');
}

/** Topics and the like may carry their words under another name than `text` (shape not specified). */
export function itemText(item: Record<string, unknown>): string {
  for (const key of ['text', 'title', 'topic', 'question', 'decision', 'summary']) {
    const value = item[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return '(no text)';
}

export function renderSegmentsText(page: SegmentPageOutput): string {
  return page.segments
    .map(
      (segment) =>
        `[${segment.index} ${segment.id} ${clock(segment.start)} ${segment.speaker}] ${segment.text}`,
    )
    .join('\n');
}
