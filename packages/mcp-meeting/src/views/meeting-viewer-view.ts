/**
 * The meeting viewer: a meeting job as a person reads it — progress while it runs; then the summary and
 * action items, the speakers' share of talk time on a timeline, and the transcript (or its translation),
 * searchable and paged through the app-only `meeting_view_page`, with Markdown/SRT/VTT export through the
 * host's download (`meeting_view_export`). Built from views/meeting-viewer/ into
 * dist/views/meeting-viewer.html (scripts/build-views.mjs). It loads nothing from any origin.
 */
import { builtViewFiles, defineView } from '@polymodal/mcp-common';

export const MEETING_VIEWER_VIEW = defineView({
  name: 'meeting-viewer',
  title: 'Meeting viewer',
  description:
    "A meeting job: its progress, then the summary, action items, speakers' talk time and the searchable transcript.",
  files: builtViewFiles(import.meta.url, 'meeting-viewer.html'),
});
