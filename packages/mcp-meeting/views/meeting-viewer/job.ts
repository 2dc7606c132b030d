/**
 * The header and the job's state: the meeting's title, progress and notes, the tool's failure, and, while
 * the job runs, following it through get_meeting (each call a bounded wait, so the job engine still spaces
 * the platform's reads) until it stops; then the summary and the transcript.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { jobStateOf, messageOf, textOf } from '@polymodal/mcp-common/views';
import { showSummary } from './summary.js';
import { loadPage } from './transcript.js';
import type { MeetingResult, Viewer } from './viewer.js';

/** A follow-up read waits this long at most (the platform's answers come every 5 s). */
const FOLLOW_WAIT_SECONDS = 20;
/** How many follow-up reads one view makes before it leaves the rest to a person's click. */
const FOLLOW_READS = 90;

export async function show(viewer: Viewer, result: CallToolResult): Promise<void> {
  const { app, elements, state } = viewer;
  const meeting = (result.structuredContent ?? {}) as MeetingResult;
  const jobState = jobStateOf(result, meeting);
  if (jobState === 'tool-failed') {
    elements.title.textContent = 'The meeting tool failed';
    elements.status.textContent = textOf(result);
    return;
  }
  state.job.id = meeting.jobId ?? state.job.id;
  showHeader(viewer, meeting);
  if (jobState === 'running') {
    void follow(viewer);
    return;
  }
  const jobId = state.job.id;
  if (meeting.status !== 'COMPLETED' || !jobId || state.job.shown === jobId) return;
  state.job.shown = jobId;
  showSummary(elements, meeting.summary);
  elements.exports.hidden = !app.getHostCapabilities()?.downloadFile;
  await loadPage(viewer, true);
}

function showHeader({ elements, state }: Viewer, meeting: MeetingResult): void {
  const jobId = state.job.id;
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
async function follow(viewer: Viewer): Promise<void> {
  const { app, elements, state } = viewer;
  if (state.job.following || !state.job.id) return;
  state.job.following = true;
  try {
    for (let read = 0; read < FOLLOW_READS; read++) {
      const result = await app.callServerTool({
        name: 'get_meeting',
        arguments: { jobId: state.job.id, include: ['summary'], waitSeconds: FOLLOW_WAIT_SECONDS },
      });
      if (result.isError) {
        elements.status.textContent = `Could not follow the job: ${textOf(result)}`;
        return;
      }
      const meeting = (result.structuredContent ?? {}) as MeetingResult;
      if (meeting.done !== false) {
        state.job.following = false;
        await show(viewer, result);
        return;
      }
      showHeader(viewer, meeting);
    }
    elements.status.textContent = 'Still processing. Ask for the meeting again to see it when it is done.';
  } catch (error) {
    elements.status.textContent = `Could not follow the job: ${messageOf(error)}`;
  } finally {
    state.job.following = false;
  }
}
