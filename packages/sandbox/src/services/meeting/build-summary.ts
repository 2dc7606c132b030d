/**
 * Deterministic summaries, derived from the transcript text by keyword rules (the sandbox has no language
 * model): "we decided/agreed", "let's go with" make a decision; "I will/I'll" an action item owned by the
 * speaker, due on the weekday or date named after "by"; a question mark an open question; "let's start
 * with", "next topic:", "last item:" open a topic. Every item points at the segments it came from.
 */
import type { TranscriptSegment } from './build-transcript.js';

export interface SummaryItem {
  text: string;
  segmentIds: string[];
}

export interface ActionItem extends SummaryItem {
  ownerSpeakerId: string;
  /** ISO date (YYYY-MM-DD), or null when the segment names no due day. */
  dueDate: string | null;
}

export interface BriefingRow {
  priority: 'high' | 'medium' | 'low';
  item: string;
  ownerSpeakerId: string | null;
  dueDate: string | null;
  segmentIds: string[];
}

export interface MeetingSummary {
  overview: string;
  topics: SummaryItem[];
  decisions: SummaryItem[];
  actionItems: ActionItem[];
  openQuestions: SummaryItem[];
  briefing: { columns: string[]; rows: BriefingRow[]; followUp: string[] };
}

const DECISION = /\b(we (?:have )?(?:decided|agreed)|let'?s go with|the decision is)\b/i;
const ACTION = /^(?:.*?\b)?(i will|i'll|i am going to|i'm going to)\s+(.*)$/i;
const TOPIC =
  /\b(?:let'?s start with|let'?s talk about|next topic:?|next item:?|last item:?|first item:?|moving on to)\s+([^.?!]+)/i;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const STOPWORDS = new Set(
  'the a an and or but of to in on for with at by from is are was were be been we i you it this that these those our their my your will can do did have has had not so as if then than there here they he she them us me about into over just very more most some any all also what who how when which let lets going get one two ten'.split(
    ' ',
  ),
);

/** Sentences of a segment (a segment may hold several). */
function sentences(text: string): string[] {
  return (text.match(/[^.?!]+[.?!]?/g) ?? []).map((part) => part.trim()).filter(Boolean);
}

const capitalize = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** The due date named after "by": a weekday (the next one after the meeting), a month and day, or an ISO date. */
export function resolveDueDate(text: string, meetingDate: Date): string | null {
  const iso = /\b(\d{4}-\d{2}-\d{2})\b/.exec(text);
  if (iso) return iso[1]!;
  const weekday = /\bby\s+(?:next\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i.exec(
    text,
  );
  if (weekday) {
    const target = WEEKDAYS.indexOf(weekday[1]!.toLowerCase());
    const days = (target - meetingDate.getUTCDay() + 7) % 7 || 7;
    return isoDate(new Date(meetingDate.getTime() + days * 86_400_000));
  }
  const monthDay = new RegExp(`\\bby\\s+(${MONTHS.join('|')})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`, 'i').exec(
    text,
  );
  if (monthDay) {
    const month = MONTHS.indexOf(monthDay[1]!.toLowerCase());
    const day = Number(monthDay[2]);
    let date = new Date(Date.UTC(meetingDate.getUTCFullYear(), month, day));
    if (date.getTime() < meetingDate.getTime() - 86_400_000) {
      date = new Date(Date.UTC(meetingDate.getUTCFullYear() + 1, month, day));
    }
    return isoDate(date);
  }
  return null;
}

/** Adds an item, or the segment to an existing item with the same text (a phrase said twice). */
function collect<T extends SummaryItem>(items: T[], item: T): void {
  const existing = items.find((candidate) => candidate.text === item.text);
  if (!existing) items.push(item);
  else {
    for (const id of item.segmentIds) if (!existing.segmentIds.includes(id)) existing.segmentIds.push(id);
  }
}

function keywordsOf(segments: readonly TranscriptSegment[], limit: number): string[] {
  const tallies = new Map<string, number>();
  for (const segment of segments) {
    for (const word of segment.text.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? []) {
      if (!STOPWORDS.has(word)) tallies.set(word, (tallies.get(word) ?? 0) + 1);
    }
  }
  return [...tallies.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([word]) => word);
}

function buildTopics(transcript: readonly TranscriptSegment[]): SummaryItem[] {
  const topics: SummaryItem[] = [];
  for (const segment of transcript) {
    const cue = TOPIC.exec(segment.text);
    if (cue) {
      const title = cue[1]!.trim().replace(/^(?:the|a|an|our)\s+/i, '');
      topics.push({ text: capitalize(title), segmentIds: [segment.id] });
    } else if (topics.length > 0) {
      topics[topics.length - 1]!.segmentIds.push(segment.id);
    }
  }
  if (topics.length > 0) {
    // Talk before the first cue (greetings) belongs to the first topic.
    const first = transcript.findIndex((segment) => segment.id === topics[0]!.segmentIds[0]);
    topics[0]!.segmentIds.unshift(...transcript.slice(0, first).map((segment) => segment.id));
    return topics;
  }
  // No cues: three parts of the meeting, each named after its most frequent words.
  const size = Math.ceil(transcript.length / 3);
  for (let start = 0; start < transcript.length; start += size) {
    const part = transcript.slice(start, start + size);
    const words = keywordsOf(part, 3);
    topics.push({
      text: words.length ? capitalize(words.join(', ')) : 'General discussion',
      segmentIds: part.map((segment) => segment.id),
    });
  }
  return topics;
}

function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))}-second`;
  return `${Math.round(seconds / 60)}-minute`;
}

export function buildSummary(options: {
  transcript: readonly TranscriptSegment[];
  durationSeconds: number;
  /** Meeting date: due days ("by Friday") are resolved from it. */
  meetingDate: Date;
}): MeetingSummary {
  const { transcript } = options;
  const decisions: SummaryItem[] = [];
  const actionItems: ActionItem[] = [];
  const openQuestions: SummaryItem[] = [];
  for (const segment of transcript) {
    for (const sentence of sentences(segment.text)) {
      if (sentence.endsWith('?')) {
        collect(openQuestions, { text: sentence, segmentIds: [segment.id] });
        continue;
      }
      if (DECISION.test(sentence)) collect(decisions, { text: sentence, segmentIds: [segment.id] });
      const action = ACTION.exec(sentence);
      if (action) {
        const task = capitalize(action[2]!.replace(/[.!]+$/, ''));
        collect(actionItems, {
          text: task,
          segmentIds: [segment.id],
          ownerSpeakerId: segment.speakerId,
          dueDate: resolveDueDate(sentence, options.meetingDate),
        });
      }
    }
  }
  const topics = transcript.length ? buildTopics(transcript) : [];
  const speakers = new Set(transcript.map((segment) => segment.speakerId)).size;
  const overview = transcript.length
    ? `A ${formatDuration(options.durationSeconds)} meeting with ${speakers} speaker${speakers === 1 ? '' : 's'} ` +
      `about ${topics.map((topic) => topic.text.toLowerCase()).join('; ')}. ` +
      `${decisions.length} decision${decisions.length === 1 ? '' : 's'}, ` +
      `${actionItems.length} action item${actionItems.length === 1 ? '' : 's'} and ` +
      `${openQuestions.length} open question${openQuestions.length === 1 ? '' : 's'}.`
    : 'No speech was detected in the recording.';
  const rows: BriefingRow[] = [
    ...actionItems.map((item) => ({
      priority: item.dueDate ? ('high' as const) : ('medium' as const),
      item: item.text,
      ownerSpeakerId: item.ownerSpeakerId,
      dueDate: item.dueDate,
      segmentIds: [...item.segmentIds],
    })),
    ...decisions.map((item) => ({
      priority: 'low' as const,
      item: item.text,
      ownerSpeakerId: null,
      dueDate: null,
      segmentIds: [...item.segmentIds],
    })),
  ];
  return {
    overview,
    topics,
    decisions,
    actionItems,
    openQuestions,
    briefing: {
      columns: ['priority', 'item', 'ownerSpeakerId', 'dueDate'],
      rows,
      followUp: openQuestions.map((item) => item.text),
    },
  };
}
