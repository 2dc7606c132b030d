/** The meeting viewer's elements (index.html), found once. */

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function findElements() {
  return {
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
}

export type ViewerElements = ReturnType<typeof findElements>;
