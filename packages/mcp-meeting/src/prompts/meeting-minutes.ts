/**
 * meeting_minutes: minutes of a recorded meeting, from the recording to the exported summary.
 */
import { MEETING_EXTENSIONS, MEETING_LANGUAGES, MeetingLanguage } from '@polymodal/core/constants';
import { definePrompt, quoted, readablePaths, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in.
const meetingMinutesArgs = {
  recording: z
    .string()
    .min(1)
    .describe('The recording: a file on this computer (in an allowed folder) or an https:// link.'),
  language: z
    .enum(['auto', ...MEETING_LANGUAGES])
    .optional()
    .describe(`The language spoken: auto (the default) or one of ${MEETING_LANGUAGES.join(', ')}.`),
  minutesLanguage: MeetingLanguage.optional().describe('The language of the minutes (default en).'),
  title: z.string().optional().describe("The meeting's title (default: the recording's file name)."),
};

export const meetingMinutesPrompt = definePrompt({
  name: 'meeting_minutes',
  title: 'Meeting minutes from a recording',
  description:
    'Transcribes and summarizes a meeting recording, then writes its minutes: summary, decisions, action items by owner, and the summary saved as a Markdown file. Costs 4 credits per started minute of the recording.',
  uses: ['summarize_meeting', 'get_meeting', 'export_meeting'],
  args: meetingMinutesArgs,
  // The languages complete from their lists.
  complete: { recording: readablePaths(MEETING_EXTENSIONS) },
  messages: ({ recording, language, minutesLanguage, title }) => [
    userMessage(
      [
        `Write the minutes of the meeting recorded in ${quoted(recording)}.`,
        `1. Call summarize_meeting with ${quoted({ path: recording, sourceLanguage: language, targetLanguage: minutesLanguage, title })}.`,
        '2. While a result says done=false, call get_meeting with its jobId and "waitSeconds": 40, until done=true. Do not call summarize_meeting again for this recording: a new job would be paid twice.',
        '3. Call export_meeting with that jobId, "what": "summary" and "format": "md". If I asked for subtitles or the transcript, also export "what": "transcript" in the format I asked for ("srt", "vtt" or "md").',
        '4. Hand back the summary, the decisions taken, the action items grouped by owner (with due dates where said), and the exported file as the result names it.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
