/**
 * The meeting's recording, when summarize_meeting was given a local file and the server serves it to this
 * client (`meeting_view_recording`): fetched through the host on the first click and played from a `data:`
 * URL, since the view loads nothing from any origin.
 */
import type { EmbeddedResource } from '@modelcontextprotocol/client';
import { messageOf, textOf } from '@polymodal/mcp-common/views';
import type { Viewer } from './viewer.js';

/** Plays the recording from `seconds`, fetching it through the host on the first click. */
export async function playFrom(viewer: Viewer, seconds: number): Promise<void> {
  const { elements, state } = viewer;
  const path = state.recording.path;
  if (!path) return;
  state.recording.loaded ??= loadRecording(viewer, path).catch((error: unknown) => {
    state.recording.loaded = undefined;
    throw error;
  });
  try {
    await state.recording.loaded;
    elements.recording.currentTime = seconds;
    await elements.recording.play();
  } catch (error) {
    elements.status.textContent = `Could not play the recording: ${messageOf(error)}`;
  }
}

async function loadRecording({ app, elements }: Viewer, path: string): Promise<void> {
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
