/**
 * thai_transcript: a Thai recording transcribed, with its segments' times.
 */
import { RECORDING_EXTENSIONS } from '@polymodal/core/constants';
import { definePrompt, quoted, readablePaths, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas.
const thaiTranscriptArgs = {
  recording: z
    .string()
    .min(1)
    .describe('The Thai recording: a file on this computer (in an allowed folder) or an https:// link.'),
};

export const thaiTranscriptPrompt = definePrompt({
  name: 'thai_transcript',
  title: 'Transcript of a Thai recording',
  description:
    'Transcribes a Thai recording with the streaming Thai recogniser and hands back the text with the time of each segment. Uses the daily audio seconds of the key.',
  uses: ['transcribe_thai'],
  args: thaiTranscriptArgs,
  // Any recording ffmpeg decodes (WAV without it).
  complete: { recording: readablePaths(RECORDING_EXTENSIONS) },
  messages: ({ recording }) => [
    userMessage(
      [
        `Transcribe the Thai recording ${quoted(recording)}.`,
        `1. Call transcribe_thai with ${quoted({ audioPath: recording })}.`,
        '2. If the result says complete=false, do once what its "Next:" line says (a faster speed or shorter pieces), and no more: each new call streams the audio again and counts it again against the daily audio seconds.',
        '3. Hand back the Thai text, then its segments with their start and end times, and say if any part is missing.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
