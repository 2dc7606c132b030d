/**
 * translate_meeting: a meeting already transcribed, translated into another language and exported.
 */
import { MEETING_LANGUAGES, MEETING_SERVICE, MeetingLanguage } from '@polymodal/core/constants';
import { definePrompt, jobIds, quoted, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in.
const translateMeetingArgs = {
  jobId: z
    .string()
    .min(1)
    .describe('The meeting job, as summarize_meeting or list_meetings named it (its jobId).'),
  targetLanguage: MeetingLanguage.describe(
    `The language to translate into: ${MEETING_LANGUAGES.join(', ')}.`,
  ),
};

export const translateMeetingPrompt = definePrompt({
  name: 'translate_meeting',
  title: 'Translate a meeting',
  description:
    "Translates a transcribed meeting into another language (replacing its current translation) and saves the translation as a Markdown file. Free: the meeting's credits were paid when it was summarized.",
  uses: ['retranslate_meeting', 'get_meeting', 'export_meeting'],
  args: translateMeetingArgs,
  // The caller's own meetings, newest first; the language completes from its list.
  complete: { jobId: jobIds(MEETING_SERVICE) },
  messages: ({ jobId, targetLanguage }) => [
    userMessage(
      [
        `Translate the meeting job ${quoted(jobId)} into ${quoted(targetLanguage)}.`,
        `1. Call retranslate_meeting with ${quoted({ jobId, targetLanguage })}. If it answers that the job is still running, first call get_meeting with ${quoted({ jobId, waitSeconds: 40 })} until done=true, then call retranslate_meeting once more.`,
        `2. While a result says done=false, call get_meeting with ${quoted({ jobId, include: ['translation'], waitSeconds: 40 })}, until done=true. Do not call retranslate_meeting again meanwhile: it would start the translation over.`,
        `3. Call export_meeting with ${quoted({ jobId, what: 'translation', format: 'md' })} (or "srt" or "vtt" if I asked for subtitles).`,
        '4. Hand back a few lines, in the new language, on what the meeting covered, and the exported file as the result names it.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
