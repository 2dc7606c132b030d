/**
 * The meeting viewer (MCP Apps) for summarize_meeting, get_meeting and the job actions. It gets the tool's
 * result from the host (`ontoolresult`). While the job runs it shows the progress and keeps following the
 * job itself through get_meeting (each call a bounded wait, so the job engine still spaces the platform's
 * reads). Once the meeting is done it shows the summary and action items, and pages the transcript through
 * the app-only `meeting_view_page` (the first page brings the speakers' talk time and the timeline), with
 * search and the translation a switch away; export hands `meeting_view_export`'s file to the host's
 * download (`ui/download-file`). A segment's time plays the recording from there when summarize_meeting was
 * given a local file and the server serves it to this client (`meeting_view_recording`, fetched on the first
 * click and played from a `data:` URL). Everything goes through the host: the view loads nothing from any
 * origin.
 */
import type { CallToolResult, EmbeddedResource } from '@modelcontextprotocol/client';
import { connectView, createViewApp, type JobFacts, messageOf, textOf } from '@polymodal/mcp-common/views';

/** A follow-up read waits this long at most (the platform's answers come every 5 s). */
const FOLLOW_WAIT_SECONDS = 20;
/** How many follow-up reads one view makes before it leaves the rest to a person's click. */
const FOLLOW_READS = 90;
const PAGE_SIZE = 100;
const SEARCH_DELAY_MS = 250;
// Distinct in light and dark themes alike.
const SPEAKER_COLORS = [
  '#2f7ed8',
  '#e4572e',
  '#29a36a',
  '#a05fd1',
  '#d4a017',
  '#17a2b8',
  '#d1477a',
  '#7a8b99',
];

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const elements = {
  title: byId<HTMLHeadingElement>('title'),
  status: byId<HTMLParagraphElement>('status'),
  progressRow: byId<HTMLDivElement>('progress-row'),
  progress: byId<HTMLProgressElement>('progress'),
  progressText: byId<HTMLSpanElement>('progress-text'),
  exports: byId<HTMLFieldSetElement>('exports'),
  summarySection: byId<HTMLElement>('summary-section'),
  overview: byId<HTMLParagraphElement>('overview'),
  summaryLists: byId<HTMLDivElement>('summary-lists'),
  speakersSection: byId<HTMLElement>('speakers-section'),
  speakers: byId<HTMLUListElement>('speakers'),
  timeline: byId<HTMLDivElement>('timeline'),
  transcriptSection: byId<HTMLElement>('transcript-section'),
  search: byId<HTMLInputElement>('search'),
  tracks: byId<HTMLFieldSetElement>('tracks'),
  transcriptStatus: byId<HTMLParagraphElement>('transcript-status'),
  segments: byId<HTMLOListElement>('segments'),
  recording: byId<HTMLAudioElement>('recording'),
  more: byId<HTMLButtonElement>('more'),
};

interface SummaryItem {
  text?: string;
  owner?: string | null;
  dueDate?: string | null;
}

interface MeetingResult extends JobFacts {
  title?: string | null;
  errorMessage?: string | null;
  warning?: string | null;
  summary?: {
    overview?: string;
    topics?: SummaryItem[];
    decisions?: SummaryItem[];
    actionItems?: SummaryItem[];
    openQuestions?: SummaryItem[];
  };
}

interface Segment {
  index: number;
  start: number;
  end: number;
  speakerId: string;
  speaker: string;
  text: string;
}

interface Page {
  status: string;
  track: 'transcript' | 'translation';
  hasTranslation: boolean;
  total: number;
  matched: number;
  nextFrom: number | null;
  segments: Segment[];
  canPlayRecording: boolean;
  speakers?: { id: string; name: string; seconds: number; share: number }[];
  timeline?: [number, number, number][];
  durationSeconds?: number;
}

const app = createViewApp('Polymodal meeting viewer');
let jobId: string | undefined;
let following = false;
let shownJob: string | undefined;
let track: Page['track'] = 'transcript';
let query = '';
let nextFrom: number | null = null;
/** Each speaker's colour, by id, from the first page's speakers (their order of first speaking). */
const speakerColors = new Map<string, string>();
/** Bumped by every new listing, so that a slow answer for an old search does not land in a new one. */
let listing = 0;
let searchTimer: ReturnType<typeof setTimeout> | undefined;
/** The local recording summarize_meeting was given, when it was one; played once the server serves it. */
let recordingPath: string | undefined;
let canPlay = false;
let recordingLoaded: Promise<void> | undefined;

app.addEventListener('toolinput', ({ arguments: input }) => {
  const given = input?.path;
  if (typeof given === 'string' && !/^https?:/i.test(given)) recordingPath = given;
});
app.addEventListener('toolresult', (result) => void show(result));
elements.more.addEventListener('click', () => void loadPage(false));
elements.search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    query = elements.search.value.trim();
    void loadPage(true);
  }, SEARCH_DELAY_MS);
});
elements.tracks.addEventListener('change', (event) => {
  const value = (event.target as HTMLInputElement).value;
  if (value !== 'transcript' && value !== 'translation') return;
  track = value;
  // The transcript's exports follow the switch: their names say which text they save.
  const noun = track === 'translation' ? 'Translation' : 'Transcript';
  for (const button of elements.exports.querySelectorAll<HTMLButtonElement>(
    'button[data-what="transcript"]',
  )) {
    button.textContent = `${noun} (.${button.dataset.format})`;
  }
  void loadPage(true);
});
for (const button of elements.exports.querySelectorAll<HTMLButtonElement>('button')) {
  button.addEventListener('click', () => void download(button));
}

/** A tool's answer: the structured result, or the tool's own words when it failed. */
async function call<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await app.callServerTool({ name, arguments: args });
  if (result.isError) throw new Error(textOf(result) || `${name} failed`);
  return result.structuredContent as T;
}

async function show(result: CallToolResult): Promise<void> {
  const meeting = (result.structuredContent ?? {}) as MeetingResult;
  if (result.isError) {
    elements.title.textContent = 'The meeting tool failed';
    elements.status.textContent = textOf(result);
    return;
  }
  jobId = meeting.jobId ?? jobId;
  showHeader(meeting);
  if (meeting.done === false) {
    void follow();
    return;
  }
  if (meeting.status !== 'COMPLETED' || !jobId || shownJob === jobId) return;
  shownJob = jobId;
  showSummary(meeting.summary);
  elements.exports.hidden = !app.getHostCapabilities()?.downloadFile;
  await loadPage(true);
}

function showHeader(meeting: MeetingResult): void {
  elements.title.textContent = meeting.title?.trim() || (jobId ? `Meeting ${jobId}` : 'Meeting');
  const running = meeting.done === false;
  const progress = Math.max(0, Math.min(100, Math.round(meeting.progress ?? 0)));
  elements.progressRow.hidden = !running;
  elements.progress.value = progress;
  elements.progressText.textContent = running ? `${meeting.status ?? 'RUNNING'} · ${progress}%` : '';
  const notes = [
    running ? 'Processing on the platform; this view follows it.' : '',
    meeting.done && meeting.status !== 'COMPLETED' ? `The job ${String(meeting.status).toLowerCase()}.` : '',
    meeting.errorMessage ? `Error: ${meeting.errorMessage}` : '',
    meeting.warning ? `Warning: ${meeting.warning}` : '',
  ];
  elements.status.textContent = notes.filter(Boolean).join(' ');
}

/** Follows a running job through get_meeting until it stops (or the view's share of reads is spent). */
async function follow(): Promise<void> {
  if (following || !jobId) return;
  following = true;
  try {
    for (let read = 0; read < FOLLOW_READS; read++) {
      const result = await app.callServerTool({
        name: 'get_meeting',
        arguments: { jobId, include: ['summary'], waitSeconds: FOLLOW_WAIT_SECONDS },
      });
      if (result.isError) {
        elements.status.textContent = `Could not follow the job: ${textOf(result)}`;
        return;
      }
      const meeting = (result.structuredContent ?? {}) as MeetingResult;
      if (meeting.done !== false) {
        following = false;
        await show(result);
        return;
      }
      showHeader(meeting);
    }
    elements.status.textContent = 'Still processing. Ask for the meeting again to see it when it is done.';
  } catch (error) {
    elements.status.textContent = `Could not follow the job: ${messageOf(error)}`;
  } finally {
    following = false;
  }
}

function showSummary(summary: MeetingResult['summary']): void {
  if (!summary) return;
  elements.summarySection.hidden = false;
  elements.overview.textContent = summary.overview || 'No overview.';
  const lists: [string, SummaryItem[] | undefined][] = [
    ['Action items', summary.actionItems],
    ['Decisions', summary.decisions],
    ['Open questions', summary.openQuestions],
    ['Topics', summary.topics],
  ];
  elements.summaryLists.replaceChildren(
    ...lists
      .filter(([, items]) => (items?.length ?? 0) > 0)
      .flatMap(([heading, items]) => {
        const h3 = document.createElement('h3');
        h3.textContent = heading;
        const ul = document.createElement('ul');
        ul.className = 'items';
        for (const item of items ?? []) {
          const li = document.createElement('li');
          li.textContent = item.text ?? '';
          const who = [item.owner, item.dueDate ? `due ${item.dueDate}` : ''].filter(Boolean).join(', ');
          if (who) {
            const owner = document.createElement('span');
            owner.className = 'owner';
            owner.textContent = ` — ${who}`;
            li.append(owner);
          }
          ul.append(li);
        }
        return [h3, ul];
      }),
  );
}

/** The first page of the current track and search (`fresh`), or the next one. */
async function loadPage(fresh: boolean): Promise<void> {
  if (!jobId) return;
  if (!fresh && nextFrom === null) return;
  const from = fresh ? 1 : (nextFrom ?? 1);
  const mine = ++listing;
  elements.more.disabled = true;
  elements.transcriptStatus.textContent = 'Loading…';
  try {
    const page = await call<Page>('meeting_view_page', {
      jobId,
      track,
      from,
      maxSegments: PAGE_SIZE,
      ...(query ? { query } : {}),
    });
    if (mine !== listing) return;
    if (page.speakers) showSpeakers(page);
    canPlay = page.canPlayRecording && recordingPath !== undefined;
    elements.transcriptSection.hidden = false;
    elements.tracks.hidden = !page.hasTranslation;
    const items = page.segments.map(segmentItem);
    if (fresh) elements.segments.replaceChildren(...items);
    else elements.segments.append(...items);
    nextFrom = page.nextFrom;
    elements.more.hidden = nextFrom === null;
    const shown = elements.segments.childElementCount;
    elements.transcriptStatus.textContent = query
      ? `${page.matched} of ${page.total} segments contain “${query}”${shown < page.matched ? ` (showing ${shown})` : ''}.`
      : shown < page.total
        ? `Showing ${shown} of ${page.total} segments.`
        : `${page.total} segments.`;
  } catch (error) {
    if (mine === listing)
      elements.transcriptStatus.textContent = `Could not load the transcript: ${messageOf(error)}`;
  } finally {
    if (mine === listing) elements.more.disabled = false;
  }
}

function colorOf(speakerId: string): string {
  let color = speakerColors.get(speakerId);
  if (!color) {
    color = SPEAKER_COLORS[speakerColors.size % SPEAKER_COLORS.length] as string;
    speakerColors.set(speakerId, color);
  }
  return color;
}

function showSpeakers(page: Page): void {
  const speakers = page.speakers ?? [];
  if (speakers.length === 0) return;
  elements.speakersSection.hidden = false;
  elements.speakers.replaceChildren(
    ...speakers.map((speaker) => {
      const color = colorOf(speaker.id);
      const li = document.createElement('li');
      li.className = 'speaker';
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = color;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = speaker.name;
      const bar = document.createElement('span');
      bar.className = 'bar';
      bar.setAttribute('aria-hidden', 'true');
      const fill = document.createElement('span');
      fill.style.width = `${(speaker.share * 100).toFixed(1)}%`;
      fill.style.background = color;
      bar.append(fill);
      const share = document.createElement('span');
      share.className = 'share';
      share.textContent = `${Math.round(speaker.share * 100)}% · ${clock(speaker.seconds)}`;
      li.append(swatch, name, bar, share);
      return li;
    }),
  );
  const duration = page.durationSeconds ?? 0;
  const names = new Map(speakers.map((speaker, index) => [index, speaker]));
  elements.timeline.replaceChildren(
    ...(page.timeline ?? []).map(([start, end, index]) => {
      const run = document.createElement('span');
      const speaker = names.get(index);
      run.style.left = `${duration > 0 ? (start / duration) * 100 : 0}%`;
      run.style.width = `${duration > 0 ? (Math.max(end - start, 0) / duration) * 100 : 0}%`;
      run.style.background = speaker ? colorOf(speaker.id) : 'gray';
      run.title = `${speaker?.name ?? ''} ${clock(start)}–${clock(end)}`;
      return run;
    }),
  );
  elements.timeline.setAttribute(
    'aria-label',
    `Timeline of ${clock(duration)}: ${speakers.map((speaker) => `${speaker.name} ${Math.round(speaker.share * 100)}%`).join(', ')}`,
  );
}

function segmentItem(segment: Segment): HTMLLIElement {
  const li = document.createElement('li');
  li.className = 'segment';
  li.style.setProperty('--speaker-color', colorOf(segment.speakerId));
  const time = document.createElement('time');
  time.className = 'time';
  time.dateTime = `PT${Math.floor(segment.start)}S`;
  time.textContent = clock(segment.start);
  let when: HTMLElement = time;
  if (canPlay) {
    const play = document.createElement('button');
    play.type = 'button';
    play.className = 'play';
    play.setAttribute('aria-label', `Play from ${clock(segment.start)}`);
    play.append('▶ ', time);
    play.addEventListener('click', () => void playFrom(segment.start));
    when = play;
  }
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = segment.speaker;
  const text = document.createElement('p');
  text.className = 'text';
  text.append(...highlighted(segment.text, query));
  li.append(when, who, text);
  return li;
}

/** The text with each occurrence of the search marked. */
function highlighted(text: string, words: string): Node[] {
  if (!words) return [document.createTextNode(text)];
  const nodes: Node[] = [];
  const lower = text.toLocaleLowerCase();
  const needle = words.toLocaleLowerCase();
  let at = 0;
  for (let found = lower.indexOf(needle); found >= 0; found = lower.indexOf(needle, at)) {
    nodes.push(document.createTextNode(text.slice(at, found)));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(found, found + needle.length);
    nodes.push(mark);
    at = found + needle.length;
  }
  nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/** Plays the recording from `seconds`, fetching it through the host on the first click. */
async function playFrom(seconds: number): Promise<void> {
  if (!recordingPath) return;
  recordingLoaded ??= loadRecording(recordingPath).catch((error: unknown) => {
    recordingLoaded = undefined;
    throw error;
  });
  try {
    await recordingLoaded;
    elements.recording.currentTime = seconds;
    await elements.recording.play();
  } catch (error) {
    elements.status.textContent = `Could not play the recording: ${messageOf(error)}`;
  }
}

async function loadRecording(path: string): Promise<void> {
  elements.status.textContent = 'Loading the recording…';
  const result = await app.callServerTool({ name: 'meeting_view_recording', arguments: { path } });
  const file = result.content?.find((item): item is EmbeddedResource => item.type === 'resource');
  if (result.isError || !file || !('blob' in file.resource))
    throw new Error(textOf(result) || 'no recording came back');
  const loaded = new Promise<void>((resolve, reject) => {
    elements.recording.addEventListener('loadedmetadata', () => resolve(), { once: true });
    elements.recording.addEventListener(
      'error',
      () => reject(new Error('the recording could not be decoded')),
      {
        once: true,
      },
    );
  });
  elements.recording.src = `data:${file.resource.mimeType ?? 'audio/wav'};base64,${file.resource.blob}`;
  elements.recording.hidden = false;
  await loaded;
  elements.status.textContent = '';
}

/** Asks the host to download the export (it shows the person what it is before saving it). */
async function download(button: HTMLButtonElement): Promise<void> {
  if (!jobId) return;
  const what = button.dataset.what === 'summary' ? 'summary' : track;
  button.disabled = true;
  elements.status.textContent = 'Preparing the file…';
  try {
    const result = await app.callServerTool({
      name: 'meeting_view_export',
      arguments: { jobId, what, format: button.dataset.format },
    });
    const file = result.content?.find((item): item is EmbeddedResource => item.type === 'resource');
    if (result.isError || !file) throw new Error(textOf(result) || 'no file came back');
    const answer = await app.downloadFile({ contents: [file] });
    elements.status.textContent = answer.isError ? 'The download was not made.' : '';
  } catch (error) {
    elements.status.textContent = `Could not export: ${messageOf(error)}`;
  } finally {
    button.disabled = false;
  }
}

/** "1:05" or "1:02:05" */
function clock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

connectView(app, elements.status);
