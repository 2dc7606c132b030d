/**
 * The meeting viewer (MCP Apps) for summarize_meeting, get_meeting and the job actions. It gets the tool's
 * result from the host (`ontoolresult`). While the job runs it shows the progress and keeps following the
 * job itself through get_meeting (job.ts). Once the meeting is done it shows the summary and action items
 * (summary.ts), and pages the transcript (transcript.ts, with the speakers' talk time and the timeline in
 * speakers.ts), with search and the translation a switch away; export hands `meeting_view_export`'s file to
 * the host's download (export.ts). A segment's time plays the recording from there when summarize_meeting
 * was given a local file and the server serves it to this client (recording.ts). Everything goes through
 * the host: the view loads nothing from any origin.
 *
 * This module wires the parts to the view's events; their shared state is one object (viewer.ts).
 */
import { connectView, createViewApp } from '@polymodal/mcp-common/views';
import { findElements } from './elements.js';
import { download, labelTranscriptExports } from './export.js';
import { show } from './job.js';
import { loadPage } from './transcript.js';
import { createViewerState, type Viewer } from './viewer.js';

const SEARCH_DELAY_MS = 250;

const elements = findElements();
const viewer: Viewer = {
  app: createViewApp('Polymodal meeting viewer'),
  elements,
  state: createViewerState(),
};
const { app, state } = viewer;

app.addEventListener('toolinput', ({ arguments: input }) => {
  const given = input?.path;
  if (typeof given === 'string' && !/^https?:/i.test(given)) state.recording.path = given;
});
app.addEventListener('toolresult', (result) => void show(viewer, result));
elements.more.addEventListener('click', () => void loadPage(viewer, false));
elements.search.addEventListener('input', () => {
  clearTimeout(state.listing.searchTimer);
  state.listing.searchTimer = setTimeout(() => {
    state.listing.query = elements.search.value.trim();
    void loadPage(viewer, true);
  }, SEARCH_DELAY_MS);
});
elements.tracks.addEventListener('change', (event) => {
  const value = (event.target as HTMLInputElement).value;
  if (value !== 'transcript' && value !== 'translation') return;
  state.listing.track = value;
  labelTranscriptExports(elements, value);
  void loadPage(viewer, true);
});
for (const button of elements.exports.querySelectorAll<HTMLButtonElement>('button')) {
  button.addEventListener('click', () => void download(viewer, button));
}

connectView(app, elements.status);
