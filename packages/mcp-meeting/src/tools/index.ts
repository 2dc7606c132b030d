/**
 * The meeting server's tools, in the order `tools/list` shows them, and its prompts.
 */
import { jobsServedBy, listJobsTool, toolGroup } from '@polymodal/mcp-common';
import { MEETING_ICON } from '../icon.js';
import { meetingMinutesPrompt } from '../prompts/meeting-minutes.js';
import { translateMeetingPrompt } from '../prompts/translate-meeting.js';
import { cancelMeetingTool } from './cancel-meeting.js';
import { deleteMeetingTool } from './delete-meeting.js';
import { exportMeetingTool } from './export-meeting.js';
import { getMeetingTool } from './get-meeting.js';
import { listMeetingsTool } from './list-meetings.js';
import {
  meetingViewExportTool,
  meetingViewPageTool,
  meetingViewRecordingTool,
} from './meeting-view-tools.js';
import { resummarizeMeetingTool } from './resummarize-meeting.js';
import { retranslateMeetingTool } from './retranslate-meeting.js';
import { retryMeetingTool } from './retry-meeting.js';
import { summarizeMeetingTool } from './summarize-meeting.js';
import { updateMeetingTool } from './update-meeting.js';

export const meetingTools = toolGroup({
  icons: [MEETING_ICON],
  tools: [
    summarizeMeetingTool,
    getMeetingTool,
    listMeetingsTool,
    cancelMeetingTool,
    retryMeetingTool,
    resummarizeMeetingTool,
    retranslateMeetingTool,
    updateMeetingTool,
    deleteMeetingTool,
    exportMeetingTool,
    listJobsTool({ ...jobsServedBy(['meeting']), noun: 'meeting jobs' }),
    // App-only (the meeting viewer's): listed only to clients that render views.
    meetingViewPageTool,
    meetingViewExportTool,
    meetingViewRecordingTool,
  ],
  prompts: [meetingMinutesPrompt, translateMeetingPrompt],
});
