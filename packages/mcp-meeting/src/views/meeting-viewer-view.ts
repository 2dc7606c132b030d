/**
 * The meeting viewer: a meeting job as a person reads it — progress while it runs; then the summary and
 * action items, the speakers' share of talk time on a timeline, and the transcript (or its translation),
 * searchable and paged through the app-only `meeting_view_page`, with Markdown/SRT/VTT export through the
 * host's download (`meeting_view_export`). Built from views/meeting-viewer/ into
 * dist/views/meeting-viewer.html (scripts/build-views.mjs). It loads nothing from any origin.
 */
import { defineView } from '@polymodal/mcp-common';

const FILE = 'meeting-viewer.html';

export const MEETING_VIEWER_VIEW = defineView({
  name: 'meeting-viewer',
  title: 'Meeting viewer',
  description:
    "A meeting job: its progress, then the summary, action items, speakers' talk time and the searchable transcript.",
  files: [
    // dist/main.js or dist/server.js; a chunk in dist/bin/; the sources (tests) with the package built.
    new URL(`./views/${FILE}`, import.meta.url),
    new URL(`../views/${FILE}`, import.meta.url),
    new URL(`../../dist/views/${FILE}`, import.meta.url),
  ],
});
