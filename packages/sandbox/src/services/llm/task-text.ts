/**
 * What the planner reads in a task's text: recording, video and image references, the phrases that ask
 * for flashcards or a video, seconds, and language names mapped to the codes and flashcard directions the
 * services take.
 */

export const RECORDING_PATH =
  /(?:^|[\s"'`(])((?:[A-Za-z]:)?[\\/][^\s"'`()]+?\.(?:wav|mp3|m4a|mp4|mov|mkv|avi))(?=$|[\s"'`),.;:])/i;

export const FLASHCARDS = /\bflash ?cards?\b/i;
/** "make a 5-second video", "generate me a short vertical video": the verb, an article, at most three words. */
export const MAKE_VIDEO =
  /\b(?:make|generate|create|render|produce)\s+(?:me\s+)?(?:a|an|one)\s+(?:[\w:-]+\s+){0,3}video\b/i;
/** "5-second", "5 seconds", "5 secs", "5 s", "5s". */
export const SECONDS = /\b(\d{1,3})(?:[\s-]?(?:seconds?|secs?)\b|\s?s\b)/i;
export const URL_IN_TEXT = /(?:^|[\s"'`(<])(https?:\/\/[^\s"'`()<>]+?)(?=[.,;:!?]?(?:$|[\s"'`)>]))/i;
export const YOUTUBE_HOST = /^https?:\/\/(?:(?:www|m)\.)?(?:youtube\.com|youtu\.be)\//i;
export const VIDEO_PATH =
  /(?:^|[\s"'`(])((?:[A-Za-z]:)?[\\/][^\s"'`()]+?\.(?:mp4|mov|mkv|webm|m4v|avi|mpeg|mpg))(?=$|[\s"'`),.;:])/i;
export const IMAGE_REFERENCE =
  /(?:^|[\s"'`(])((?:https?:\/\/|(?:[A-Za-z]:)?[\\/])[^\s"'`()]+?\.(?:png|jpe?g|webp))(?=$|[\s"'`),.;:])/i;

const LANGUAGES: readonly [RegExp, string][] = [
  [/\bthai\b/i, 'th'],
  [/\bvietnamese\b/i, 'vi'],
  [/\bjapanese\b/i, 'ja'],
  [/\bkorean\b/i, 'ko'],
  [/\b(simplified )?chinese\b/i, 'zh-cn'],
  [/\bspanish\b/i, 'es'],
  [/\bfrench\b/i, 'fr'],
  [/\bgerman\b/i, 'de'],
  [/\bindonesian\b/i, 'id'],
  [/\benglish\b/i, 'en'],
];

/** The code of the first language of the list the text names (in the list's order), else English. */
export function targetLanguage(task: string): string {
  for (const [pattern, code] of LANGUAGES) if (pattern.test(task)) return code;
  return 'en';
}

/** The flashcards service's directions by language names, in the order the service lists them. */
const DIRECTIONS: readonly [string, string, string][] = [
  ['thai', 'chinese', 'thai_to_chinese'],
  ['chinese', 'thai', 'chinese_to_thai'],
  ['chinese', 'vietnamese', 'chinese_to_vietnamese'],
  ['korean', 'chinese', 'korean_to_chinese'],
  ['japanese', 'chinese', 'japanese_to_chinese'],
];

export function learningDirection(task: string): string {
  const pairs = [
    ...task.matchAll(
      /\b(thai|chinese|vietnamese|korean|japanese)[\s-]+(?:to|into|→)[\s-]+(thai|chinese|vietnamese|korean|japanese)\b/gi,
    ),
  ];
  for (const pair of pairs) {
    const [from, to] = [pair[1]?.toLowerCase(), pair[2]?.toLowerCase()];
    const found = DIRECTIONS.find(([source, target]) => source === from && target === to);
    if (found) return found[2];
  }
  const named = [...task.matchAll(/\b(thai|chinese|vietnamese|korean|japanese)\b/gi)].map((match) =>
    (match[1] as string).toLowerCase(),
  );
  for (const language of named) {
    const found = DIRECTIONS.find(([source]) => source === language);
    if (found) return found[2];
  }
  return 'thai_to_chinese';
}
