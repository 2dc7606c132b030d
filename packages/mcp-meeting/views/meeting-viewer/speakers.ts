/** The speakers' talk time and the timeline of who spoke when, each speaker in a colour of their own. */
import type { ViewerElements } from './elements.js';
import { clock, type Page, type ViewerState } from './viewer.js';

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

/** A speaker's colour: the next free one the first time they are seen. */
export function colorOf(state: ViewerState, speakerId: string): string {
  let color = state.speakerColors.get(speakerId);
  if (!color) {
    color = SPEAKER_COLORS[state.speakerColors.size % SPEAKER_COLORS.length] as string;
    state.speakerColors.set(speakerId, color);
  }
  return color;
}

type Speaker = NonNullable<Page['speakers']>[number];

export function showSpeakers(elements: ViewerElements, state: ViewerState, page: Page): void {
  const speakers = page.speakers ?? [];
  if (speakers.length === 0) return;
  elements.speakersSection.hidden = false;
  elements.speakers.replaceChildren(
    ...speakers.map((speaker) => speakerItem(speaker, colorOf(state, speaker.id))),
  );
  const duration = page.durationSeconds ?? 0;
  const names = new Map(speakers.map((speaker, index) => [index, speaker]));
  elements.timeline.replaceChildren(
    ...(page.timeline ?? []).map(([start, end, index]) => {
      const run = document.createElement('span');
      const speaker = names.get(index);
      run.style.left = `${duration > 0 ? (start / duration) * 100 : 0}%`;
      run.style.width = `${duration > 0 ? (Math.max(end - start, 0) / duration) * 100 : 0}%`;
      run.style.background = speaker ? colorOf(state, speaker.id) : 'gray';
      run.title = `${speaker?.name ?? ''} ${clock(start)}–${clock(end)}`;
      return run;
    }),
  );
  elements.timeline.setAttribute(
    'aria-label',
    `Timeline of ${clock(duration)}: ${speakers.map((speaker) => `${speaker.name} ${Math.round(speaker.share * 100)}%`).join(', ')}`,
  );
}

function speakerItem(speaker: Speaker, color: string): HTMLLIElement {
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
}
