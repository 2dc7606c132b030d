/**
 * The flashcard options, checked before anything is sent: their shape (`max_words_per_segment` 1–80, the
 * key length, the learning direction) and an explicit language pair, which must match the direction.
 */
import { DIRECTION_LANGUAGES } from '../constants/flashcards-constants.js';
import { FlashcardOptions } from '../contracts/flashcards.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';

export function checkFlashcardOptions(input: FlashcardOptions): FlashcardOptions {
  const parsed = FlashcardOptions.safeParse(input);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, input);
    throw new ValidationError(`Invalid flashcard options: ${listIssues(issues)}. Nothing was sent.`, issues);
  }
  const pair = DIRECTION_LANGUAGES[parsed.data.learning_direction];
  for (const [field, expected] of [
    ['source_language', pair.source],
    ['target_language', pair.target],
  ] as const) {
    const given = parsed.data[field];
    if (given !== undefined && given !== expected) {
      throw new ValidationError(
        `${field} ${given} does not match ${parsed.data.learning_direction} (expected ${expected}). Omit the pair or make it match. Nothing was sent.`,
        [{ path: field, message: 'does not match the learning direction' }],
      );
    }
  }
  return parsed.data;
}
