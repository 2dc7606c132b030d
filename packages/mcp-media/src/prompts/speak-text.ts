/**
 * speak_text: a text spoken into a saved WAV file, in a registered voice or the default one.
 */
import { TTS_LANGUAGES } from '@polymodal/core/constants';
import { definePrompt, quoted, registeredVoices, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in: the text, free and
// long, comes last and may be left out (the model then asks for it).
const speakTextArgs = {
  voice: z
    .string()
    .optional()
    .describe(
      'A voice registered with register_voice (its cloneAudio, as list_voices shows it); default voice if left out.',
    ),
  language: z
    .enum(TTS_LANGUAGES)
    .optional()
    .describe(`The text's language: ${TTS_LANGUAGES.join(', ')}.`),
  text: z.string().optional().describe('The text to speak; if left out, you are asked for it.'),
};

export const speakTextPrompt = definePrompt({
  name: 'speak_text',
  title: 'Speak a text',
  description:
    'Speaks a text of any length into one saved WAV file, in a registered voice or the default one. Costs credits per part of the text.',
  uses: ['synthesize_speech', 'get_speech'],
  args: speakTextArgs,
  // The language completes from its list.
  complete: { voice: registeredVoices() },
  messages: ({ voice, language, text }) => [
    userMessage(
      [
        'Speak a text aloud into a saved audio file.',
        text === undefined
          ? '0. First ask me for the text to speak, and wait for my answer; use it as "text" below.'
          : `The text is ${quoted(text)}.`,
        `1. Call synthesize_speech with ${quoted({ text, voice, language })}${text === undefined ? ', adding my text as "text"' : ''}.`,
        '2. While a result says done=false, call get_speech with its jobId and "waitSeconds": 40, until done=true. Do not call synthesize_speech again for this text: parts would be paid twice.',
        '3. Hand back the saved audio file as the result names it, and how long it is.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});
