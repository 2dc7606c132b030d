/**
 * Export: `meeting_view_export`'s file handed to the host's download (`ui/download-file`; the host shows the
 * person what it is before saving it). The transcript's exports follow the language switch.
 */
import type { EmbeddedResource } from '@modelcontextprotocol/client';
import { messageOf, textOf } from '@polymodal/mcp-common/views';
import type { ViewerElements } from './elements.js';
import type { Track, Viewer } from './viewer.js';

/** The transcript's exports say which text they save. */
export function labelTranscriptExports(elements: ViewerElements, track: Track): void {
  const noun = track === 'translation' ? 'Translation' : 'Transcript';
  for (const button of elements.exports.querySelectorAll<HTMLButtonElement>(
    'button[data-what="transcript"]',
  )) {
    button.textContent = `${noun} (.${button.dataset.format})`;
  }
}

/** Asks the host to download the export (it shows the person what it is before saving it). */
export async function download({ app, elements, state }: Viewer, button: HTMLButtonElement): Promise<void> {
  const jobId = state.job.id;
  if (!jobId) return;
  const what = button.dataset.what === 'summary' ? 'summary' : state.listing.track;
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
