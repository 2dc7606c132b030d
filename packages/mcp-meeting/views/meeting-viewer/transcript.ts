/**
 * The transcript, paged through the app-only `meeting_view_page` (the first page brings the speakers' talk
 * time and the timeline), with search and the translation a switch away; a segment's time plays the
 * recording from there when the server serves it to this client.
 */
import { messageOf } from '@polymodal/mcp-common/views';
import { playFrom } from './recording.js';
import { colorOf, showSpeakers } from './speakers.js';
import { call, clock, type Page, type Viewer } from './viewer.js';

const PAGE_SIZE = 100;

/** The first page of the current track and search (`fresh`), or the next one. */
export async function loadPage(viewer: Viewer, fresh: boolean): Promise<void> {
  const { app, elements, state } = viewer;
  const listing = state.listing;
  if (!state.job.id) return;
  if (!fresh && listing.nextFrom === null) return;
  const from = fresh ? 1 : (listing.nextFrom ?? 1);
  const mine = ++listing.generation;
  elements.more.disabled = true;
  elements.transcriptStatus.textContent = 'Loading…';
  try {
    const page = await call<Page>(app, 'meeting_view_page', {
      jobId: state.job.id,
      track: listing.track,
      from,
      maxSegments: PAGE_SIZE,
      ...(listing.query ? { query: listing.query } : {}),
    });
    if (mine !== listing.generation) return;
    showPage(viewer, page, fresh);
  } catch (error) {
    if (mine === listing.generation)
      elements.transcriptStatus.textContent = `Could not load the transcript: ${messageOf(error)}`;
  } finally {
    if (mine === listing.generation) elements.more.disabled = false;
  }
}

function showPage(viewer: Viewer, page: Page, fresh: boolean): void {
  const { elements, state } = viewer;
  const { query } = state.listing;
  if (page.speakers) showSpeakers(elements, state, page);
  state.recording.canPlay = page.canPlayRecording && state.recording.path !== undefined;
  elements.transcriptSection.hidden = false;
  elements.tracks.hidden = !page.hasTranslation;
  const items = page.segments.map((segment) => segmentItem(viewer, segment));
  if (fresh) elements.segments.replaceChildren(...items);
  else elements.segments.append(...items);
  state.listing.nextFrom = page.nextFrom;
  elements.more.hidden = page.nextFrom === null;
  const shown = elements.segments.childElementCount;
  elements.transcriptStatus.textContent = query
    ? `${page.matched} of ${page.total} segments contain “${query}”${shown < page.matched ? ` (showing ${shown})` : ''}.`
    : shown < page.total
      ? `Showing ${shown} of ${page.total} segments.`
      : `${page.total} segments.`;
}

function segmentItem(viewer: Viewer, segment: Page['segments'][number]): HTMLLIElement {
  const { state } = viewer;
  const li = document.createElement('li');
  li.className = 'segment';
  li.style.setProperty('--speaker-color', colorOf(state, segment.speakerId));
  const time = document.createElement('time');
  time.className = 'time';
  time.dateTime = `PT${Math.floor(segment.start)}S`;
  time.textContent = clock(segment.start);
  let when: HTMLElement = time;
  if (state.recording.canPlay) {
    const play = document.createElement('button');
    play.type = 'button';
    play.className = 'play';
    play.setAttribute('aria-label', `Play from ${clock(segment.start)}`);
    play.append('▶ ', time);
    play.addEventListener('click', () => void playFrom(viewer, segment.start));
    when = play;
  }
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = segment.speaker;
  const text = document.createElement('p');
  text.className = 'text';
  text.append(...highlighted(segment.text, state.listing.query));
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
