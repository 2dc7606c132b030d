/**
 * check_thai_reading: a student's Thai reading scored against the text they practise, with feedback.
 */
import { READING_AUDIO_EXTENSIONS } from '@polymodal/core/constants';
import { definePrompt, quoted, readablePaths, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in: the text, free and
// long, comes last and may be left out (the model then asks for it).
const checkThaiReadingArgs = {
  recording: z
    .string()
    .min(1)
    .describe("The student's recording: a file on this computer (in an allowed folder) or an https:// link."),
  referenceText: z
    .string()
    .optional()
    .describe('The Thai text the student practises reading; if left out, you are asked for it.'),
};

export const checkThaiReadingPrompt = definePrompt({
  name: 'check_thai_reading',
  title: "Check a student's Thai reading",
  description:
    "Scores a student's recording of a Thai text against that text: overall scores, the words read wrongly, and feedback with the words to practise. Costs credits per scoring.",
  uses: ['score_reading', 'get_reading_score'],
  args: checkThaiReadingArgs,
  complete: { recording: readablePaths(READING_AUDIO_EXTENSIONS) },
  messages: ({ recording, referenceText }) => [
    userMessage(
      [
        `Check the Thai reading recorded in ${quoted(recording)}.`,
        referenceText === undefined
          ? '0. First ask me for the Thai text the student was reading, and wait for my answer; use it as "referenceText" below.'
          : `The student was reading ${quoted(referenceText)}.`,
        `1. Call score_reading with ${quoted({ studentAudioPath: recording, referenceText })}${referenceText === undefined ? ', adding my text as "referenceText"' : ''}.`,
        '2. If a result says done=false, call get_reading_score with its jobId and "waitSeconds": 40, until done=true. Do not call score_reading again for this recording: it would be paid twice.',
        '3. Hand back the overall scores, the words read wrongly (what was expected and what was heard), and short, encouraging feedback for the student naming the words to practise.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
