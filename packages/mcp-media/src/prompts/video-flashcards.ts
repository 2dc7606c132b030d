/**
 * video_flashcards: language flashcards from a video, created and reviewed.
 */
import { FLASHCARD_VIDEO_EXTENSIONS, LEARNING_DIRECTIONS } from '@polymodal/core/constants';
import { definePrompt, quoted, readablePaths, userMessage } from '@polymodal/mcp-common';
import { z } from 'zod';

// Built once per process, like the tools' schemas. The order is the order hosts ask in.
const videoFlashcardsArgs = {
  video: z
    .string()
    .min(1)
    .describe(
      'The video: a YouTube or other https:// link, or a file on this computer (in an allowed folder).',
    ),
  direction: z
    .enum(LEARNING_DIRECTIONS)
    .describe(`The language pair you learn, from the video's language: ${LEARNING_DIRECTIONS.join(', ')}.`),
};

export const videoFlashcardsPrompt = definePrompt({
  name: 'video_flashcards',
  title: 'Flashcards from a video',
  description:
    'Turns a video into language flashcards for a language pair (for example thai_to_chinese) and reviews them with you; the cards are also saved as a JSON file. Costs credits and daily video minutes.',
  uses: ['create_flashcards', 'get_flashcards'],
  args: videoFlashcardsArgs,
  // A link is typed; a local video completes among the readable files. The direction completes from its list.
  complete: { video: readablePaths(FLASHCARD_VIDEO_EXTENSIONS) },
  messages: ({ video, direction }) => [
    userMessage(
      [
        `Make language flashcards from the video ${quoted(video)} for the learning direction ${quoted(direction)}.`,
        `1. Call create_flashcards with ${quoted({ video, learningDirection: direction, sourceType: sourceTypeOf(video) })}.`,
        '2. While a result says done=false, call get_flashcards with its jobId and "waitSeconds": 40, until done=true. Do not call create_flashcards again for this video: a new job would be paid twice.',
        '3. Hand back how many cards there are, then the first ten as a short table (the phrase, its translation, the words worth learning), and the saved JSON file as the result names it.',
        'If a tool answers with an error, tell me what it says and what it suggests, and stop there.',
      ].join('\n'),
    ),
  ],
});

/**
 * A web link outside YouTube is a video file on the web, which the tool must be told (it takes a link for a
 * YouTube video by default); a local file or a YouTube link needs nothing (the tool itself refuses a YouTube
 * link that names no video).
 */
function sourceTypeOf(video: string): 'direct_video_url' | undefined {
  if (!/^https?:\/\//i.test(video)) return undefined;
  let host: string;
  try {
    host = new URL(video).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return /(^|\.)(youtube\.com|youtu\.be)$/.test(host) ? undefined : 'direct_video_url';
}
