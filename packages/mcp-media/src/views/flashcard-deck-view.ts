/**
 * The flashcard deck view: the cards of create_flashcards / get_flashcards one at a time, turned over on
 * request (the sentence of the video on the front; its translation and words on the back), with the card
 * count, and the job's progress with "Check again" while it runs. Built from views/flashcard-deck/ into
 * dist/views/flashcard-deck.html (scripts/build-views.mjs); the cards the result does not list are read
 * from the saved JSON through the host (`resources/read` of the output), so the view needs no origin in its
 * CSP.
 */
import { builtViewFiles, defineView } from '@polymodal/mcp-common';

export const FLASHCARD_DECK_VIEW = defineView({
  name: 'flashcard-deck',
  title: 'Flashcards',
  description:
    "Shows the flashcards one at a time, each turned over to its translation and words, with the card count; shows a running job's progress and checks it again on request.",
  files: builtViewFiles(import.meta.url, 'flashcard-deck.html'),
});
