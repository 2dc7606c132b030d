/**
 * `sandbox-planner-1`: the sandbox's deterministic chat model. It does not understand language; it follows
 * a small, documented policy so that an agent can run end to end offline and tests can predict every turn.
 *
 * Given the conversation and the tools on offer (native OpenAI `tools`, or the JSON protocol described in a
 * system message as lines `- <tool name>: ...`), each turn it picks the first rule that applies:
 *  1. Keep waiting: the latest tool result says `done: false`, carries a `jobId` and its `next` names an
 *     offered tool → call that tool with `{jobId, waitSeconds: 40}`.
 *  2. Summarise a meeting: the task names a recording path (wav, mp3, m4a, mp4, mov, mkv, avi) — the first
 *     one after the word "meeting" when there is one — and `summarize_meeting` is offered and was not
 *     called yet → call it with that path, `sourceLanguage`
 *     `auto`, `targetLanguage` from the first language the task names (English if none) and `title` when
 *     the task says `titled "..."`.
 *  3. Export: once a meeting job is COMPLETED and `export_meeting` is offered, export what the task asks
 *     for, each once: "markdown"/"summary" → summary as md, "srt" → transcript as srt, "vtt" → translation
 *     as vtt.
 *  3b. Speak the action items: once a meeting result carries action items, the task asks for them as
 *     speech ("action items" and "speech"/"synthesise"/"read out") and `synthesize_speech` is offered and
 *     was not called yet → call it with the items ("<owner>: <item>", each translated with the meeting
 *     service's phrase table) in the language named after "speech in" (else the task's first language),
 *     when speech synthesis supports it (else English).
 *  4. Score a reading: the task names an audio path after the word "reading" and a quoted reference text
 *     (`against "..."`), and `score_reading` is offered and was not called yet → call it with them.
 *  5. Transcribe: the task names an audio path after the word "transcribe" and `transcribe_thai` is offered
 *     and was not called yet → call it with that path.
 *  6. Make a video: the task asks to make (generate, create, render, produce) a video — the verb, "a"/"an",
 *     at most three words, "video": "make a 5-second video", not "create a summary of the meeting video" —
 *     and does not ask for flashcards.
 *     a. It names an image (png, jpg, jpeg, webp; a path or an http(s) URL) and `image_to_video` is offered
 *        and was not called yet → call it with that image, the prompt and the duration (clamped to 2–10).
 *     b. Otherwise, with `generate_video` offered and not called yet: first read the catalog with
 *        `list_video_models` (when offered and not called yet), then call `generate_video` with the first
 *        text-to-video model listed, the prompt, the duration snapped to the model's allowed values (or
 *        clamped to its range; left out when the model has no duration or the task names none) and an
 *        aspect ratio the task names ("16:9", "vertical"/"portrait" → 9:16, "square" → 1:1) when the model
 *        offers it. Without a catalog (not offered, failed or unreadable) no model is guessed.
 *     The prompt is the text after "video of" (or "showing"/"about"/"where") to the end of that sentence,
 *     else the task's first sentence. Seconds come from "5-second", "5 seconds", "5 s" or "5s".
 *  7. Make flashcards: the task says "flashcards", names a video (the first http(s) URL, else the first
 *     local mp4/mov/mkv/webm/m4v/avi/mpeg/mpg path) and `create_flashcards` is offered and was not called
 *     yet → call it with that video (`sourceType: direct_video_url` for a URL that is not YouTube) and the
 *     learning direction: the first "<language> to <language>" pair the task names among the service's
 *     directions, else the first direction whose source language the task names, else thai_to_chinese.
 *  Rules 6 and 7 start with `waitSeconds: 0`, so the start answers at once with the job's handle and rule 1
 *  follows it (`get_video_job`, `get_flashcards`), where the wait and its progress are shown. A task that
 *  asks for flashcards takes a meeting recording (rule 2) only after the word "meeting".
 *  8. Otherwise answer: what each tool reported (first line), then each part under a heading that says what
 *     it is, taken from the tool that produced it: the summary's decisions, action items and open questions
 *     (a meeting tool's result), what the student should practise (a reading score's), what the Thai speech
 *     says (`transcribe_thai`'s), the first flashcards with their translations (a flashcards tool's), and
 *     the files written.
 * Without tools it answers plain text that says what it is and echoes the request briefly.
 */

import { TTS_LANGUAGES as SPEECH_LANGUAGES } from '@polymodal/core/constants';
import { DETECTED_LANGUAGE, translateText } from '../meeting/phrase-translations.js';

export const PLANNER_MODEL_ID = 'sandbox-planner-1';

export interface PlannerMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
}

export type PlannerTurn =
  | { kind: 'tool_call'; name: string; arguments: Record<string, unknown> }
  | { kind: 'answer'; text: string };

interface ToolExchange {
  name: string;
  arguments: Record<string, unknown>;
  result: Record<string, unknown> | undefined;
  text: string;
}

const RECORDING_PATH =
  /(?:^|[\s"'`(])((?:[A-Za-z]:)?[\\/][^\s"'`()]+?\.(?:wav|mp3|m4a|mp4|mov|mkv|avi))(?=$|[\s"'`),.;:])/i;

const FLASHCARDS = /\bflash ?cards?\b/i;
/** "make a 5-second video", "generate me a short vertical video": the verb, an article, at most three words. */
const MAKE_VIDEO =
  /\b(?:make|generate|create|render|produce)\s+(?:me\s+)?(?:a|an|one)\s+(?:[\w:-]+\s+){0,3}video\b/i;
/** "5-second", "5 seconds", "5 secs", "5 s", "5s". */
const SECONDS = /\b(\d{1,3})(?:[\s-]?(?:seconds?|secs?)\b|\s?s\b)/i;
const URL_IN_TEXT = /(?:^|[\s"'`(<])(https?:\/\/[^\s"'`()<>]+?)(?=[.,;:!?]?(?:$|[\s"'`)>]))/i;
const YOUTUBE_HOST = /^https?:\/\/(?:(?:www|m)\.)?(?:youtube\.com|youtu\.be)\//i;
const VIDEO_PATH =
  /(?:^|[\s"'`(])((?:[A-Za-z]:)?[\\/][^\s"'`()]+?\.(?:mp4|mov|mkv|webm|m4v|avi|mpeg|mpg))(?=$|[\s"'`),.;:])/i;
const IMAGE_REFERENCE =
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

/** Tools named in a JSON-protocol system prompt (`- name: description` lines). */
export function toolsFromPrompt(system: string): string[] {
  return [...system.matchAll(/^- ([a-z][a-z0-9_]*):/gm)].map((match) => match[1] as string);
}

export function planTurn(messages: readonly PlannerMessage[], tools: readonly string[]): PlannerTurn {
  const task = messages.find((message) => message.role === 'user')?.content ?? '';
  const exchanges = readExchanges(messages);
  const offered = new Set(tools);
  const called = (name: string) => exchanges.filter((exchange) => exchange.name === name);

  const latest = exchanges.at(-1);
  if (latest?.result?.done === false && typeof latest.result.jobId === 'string') {
    const next = typeof latest.result.next === 'string' ? latest.result.next : '';
    const tool = [...offered].find((name) => next.includes(name));
    if (tool)
      return { kind: 'tool_call', name: tool, arguments: { jobId: latest.result.jobId, waitSeconds: 40 } };
  }

  const asksFlashcards = FLASHCARDS.test(task);
  const meetingAt = task.search(/\bmeeting\b/i);
  // The video of a flashcards task is not a meeting: then only a path after the word "meeting" is one.
  const recording = asksFlashcards
    ? meetingAt >= 0
      ? RECORDING_PATH.exec(task.slice(meetingAt))?.[1]
      : undefined
    : (RECORDING_PATH.exec(meetingAt >= 0 ? task.slice(meetingAt) : task)?.[1] ??
      RECORDING_PATH.exec(task)?.[1]);
  const title = /\btitled\s+"([^"]{1,200})"/i.exec(task)?.[1];
  if (recording && offered.has('summarize_meeting') && called('summarize_meeting').length === 0) {
    return {
      kind: 'tool_call',
      name: 'summarize_meeting',
      arguments: {
        path: recording,
        sourceLanguage: 'auto',
        targetLanguage: targetLanguage(task),
        ...(title ? { title } : {}),
      },
    };
  }

  const completed = [...exchanges].reverse().find((exchange) => exchange.result?.status === 'COMPLETED');
  if (completed && offered.has('export_meeting') && typeof completed.result?.jobId === 'string') {
    const wanted: [boolean, string, string][] = [
      [/\bmarkdown\b|\bsummary\b/i.test(task), 'summary', 'md'],
      [/\bsrt\b/i.test(task), 'transcript', 'srt'],
      [/\bvtt\b/i.test(task), 'translation', 'vtt'],
    ];
    const done = called('export_meeting').map(
      (exchange) => `${exchange.arguments.what}/${exchange.arguments.format}`,
    );
    for (const [asked, what, format] of wanted) {
      if (asked && !done.includes(`${what}/${format}`)) {
        return {
          kind: 'tool_call',
          name: 'export_meeting',
          arguments: { jobId: completed.result.jobId, what, format },
        };
      }
    }
  }

  const meeting = [...exchanges].reverse().find((exchange) => exchange.result?.summary)?.result;
  const actionItems = (meeting?.summary as { actionItems?: unknown } | undefined)?.actionItems;
  if (
    Array.isArray(actionItems) &&
    actionItems.length > 0 &&
    /\baction items\b/i.test(task) &&
    /\bspeech\b|\bsynthesi[sz]e\b|\bread (?:them )?out\b/i.test(task) &&
    offered.has('synthesize_speech') &&
    called('synthesize_speech').length === 0
  ) {
    const named = /\bspeech in (\w+)/i.exec(task)?.[1];
    const wanted = named ? targetLanguage(named) : targetLanguage(task);
    const language = wanted === 'zh-cn' ? 'zh' : wanted;
    const spoken = (SPEECH_LANGUAGES as readonly string[]).includes(language) ? language : 'en';
    const text = (actionItems as { text?: unknown; owner?: unknown }[])
      .map((item) => {
        const translated = translateText(String(item.text ?? ''), spoken, DETECTED_LANGUAGE);
        // Thai ends a sentence with a space; other scripts get a full stop so the parts split cleanly.
        const sentence = spoken === 'th' || /[.!?。]$/.test(translated) ? translated : `${translated}.`;
        return typeof item.owner === 'string' && item.owner !== '' ? `${item.owner}: ${sentence}` : sentence;
      })
      .join(' ');
    return { kind: 'tool_call', name: 'synthesize_speech', arguments: { text, language: spoken } };
  }

  const readingAt = task.search(/\breading\b/i);
  const readingPath = readingAt >= 0 ? RECORDING_PATH.exec(task.slice(readingAt))?.[1] : undefined;
  const referenceText = /\bagainst (?:the text )?"([^"]{1,500})"/i.exec(task)?.[1];
  if (readingPath && referenceText && offered.has('score_reading') && called('score_reading').length === 0) {
    return {
      kind: 'tool_call',
      name: 'score_reading',
      arguments: { studentAudioPath: readingPath, referenceText },
    };
  }

  const transcribeAt = task.search(/\btranscribe\b/i);
  const speechPath = transcribeAt >= 0 ? RECORDING_PATH.exec(task.slice(transcribeAt))?.[1] : undefined;
  if (speechPath && offered.has('transcribe_thai') && called('transcribe_thai').length === 0) {
    return { kind: 'tool_call', name: 'transcribe_thai', arguments: { audioPath: speechPath } };
  }

  if (!asksFlashcards && MAKE_VIDEO.test(task)) {
    const turn = planVideo(task, offered, exchanges);
    if (turn) return turn;
  }

  if (asksFlashcards && offered.has('create_flashcards') && called('create_flashcards').length === 0) {
    const video = URL_IN_TEXT.exec(task)?.[1] ?? VIDEO_PATH.exec(task)?.[1];
    if (video) {
      const url = /^https?:\/\//i.test(video);
      return {
        kind: 'tool_call',
        name: 'create_flashcards',
        arguments: {
          video,
          ...(url && !YOUTUBE_HOST.test(video) ? { sourceType: 'direct_video_url' } : {}),
          learningDirection: learningDirection(task),
          waitSeconds: 0,
        },
      };
    }
  }

  return { kind: 'answer', text: composeAnswer(exchanges) };
}

/** Rule 6: an image-to-video call, the catalog read, or a catalog video call; undefined when none applies. */
function planVideo(
  task: string,
  offered: ReadonlySet<string>,
  exchanges: readonly ToolExchange[],
): PlannerTurn | undefined {
  const called = (name: string) => exchanges.some((exchange) => exchange.name === name);
  const prompt = videoPrompt(task);
  const seconds = Number(SECONDS.exec(task)?.[1] ?? Number.NaN);
  const image = IMAGE_REFERENCE.exec(task)?.[1];
  if (image && offered.has('image_to_video')) {
    if (called('image_to_video')) return undefined;
    return {
      kind: 'tool_call',
      name: 'image_to_video',
      arguments: {
        image,
        prompt,
        ...(Number.isFinite(seconds) ? { duration: Math.min(10, Math.max(2, seconds)) } : {}),
        waitSeconds: 0,
      },
    };
  }
  if (!offered.has('generate_video') || called('generate_video')) return undefined;
  if (offered.has('list_video_models') && !called('list_video_models')) {
    return { kind: 'tool_call', name: 'list_video_models', arguments: {} };
  }
  const catalog = [...exchanges].reverse().find((exchange) => exchange.name === 'list_video_models');
  const model = catalog ? textToVideoModel(catalog) : undefined;
  if (!model) return undefined;
  // Unknown parameters (only the text was readable): the seconds asked for go as they are, and the
  // service snaps them; a ratio is sent only when the catalog shows it is allowed.
  const durationParameter = model.parameters?.find((parameter) => parameter.name === 'duration');
  const duration = !Number.isFinite(seconds)
    ? undefined
    : model.parameters === undefined
      ? seconds
      : durationParameter
        ? fitToParameter(seconds, durationParameter)
        : undefined;
  const ratios = model.parameters?.find((parameter) => parameter.name === 'aspect_ratio')?.values ?? [];
  const ratio = aspectRatio(task);
  return {
    kind: 'tool_call',
    name: 'generate_video',
    arguments: {
      model: model.id,
      prompt,
      ...(duration === undefined ? {} : { duration }),
      ...(ratio && ratios.includes(ratio) ? { aspectRatio: ratio } : {}),
      waitSeconds: 0,
    },
  };
}

interface CatalogParameterView {
  name: string;
  values?: unknown[];
  minimum?: number;
  maximum?: number;
}

interface CatalogEntry {
  id: string;
  category: string;
  /** Undefined when only the text lines were readable: the parameters are then unknown. */
  parameters?: CatalogParameterView[];
}

/**
 * The first text-to-video model of a `list_video_models` result: from its structured content, else from its
 * text lines (`- <id> (<category>): ...`), which survive a result cut short.
 */
function textToVideoModel(exchange: ToolExchange): CatalogEntry | undefined {
  const listed = exchange.result?.models;
  const models: CatalogEntry[] = Array.isArray(listed)
    ? (listed as CatalogEntry[]).filter((model) => typeof model?.id === 'string')
    : [...exchange.text.matchAll(/^- (\S+) \(([^)]+)\)/gm)].map((match) => ({
        id: match[1] as string,
        category: match[2] as string,
      }));
  return models.find((model) => model.category === 'text-to-video');
}

/** Seconds snapped to the nearest allowed value (the lower one on a tie), or clamped to the range. */
function fitToParameter(seconds: number, parameter: CatalogParameterView): number {
  const allowed = (parameter.values ?? []).filter((value): value is number => typeof value === 'number');
  if (allowed.length > 0) {
    return allowed.reduce((best, value) =>
      Math.abs(value - seconds) < Math.abs(best - seconds) ||
      (Math.abs(value - seconds) === Math.abs(best - seconds) && value < best)
        ? value
        : best,
    );
  }
  return Math.min(parameter.maximum ?? seconds, Math.max(parameter.minimum ?? seconds, seconds));
}

function videoPrompt(task: string): string {
  const described = /\bvideo (?:of|showing|about|where)\s+(.+?)(?:[.!?](?:\s|$)|,\s*then\b|$)/is.exec(
    task,
  )?.[1];
  const sentence = described ?? /^(.+?)(?:[.!?](?:\s|$)|$)/s.exec(task.trim())?.[1] ?? task;
  const prompt = sentence.replace(/\s+/g, ' ').trim();
  return prompt.length > 500 ? prompt.slice(0, 500) : prompt;
}

function aspectRatio(task: string): string | undefined {
  const explicit = /\b(\d{1,2}:\d{1,2})\b/.exec(task)?.[1];
  if (explicit) return explicit;
  if (/\b(vertical|portrait)\b/i.test(task)) return '9:16';
  if (/\bsquare\b/i.test(task)) return '1:1';
  return undefined;
}

/** The flashcards service's directions by language names, in the order the service lists them. */
const DIRECTIONS: readonly [string, string, string][] = [
  ['thai', 'chinese', 'thai_to_chinese'],
  ['chinese', 'thai', 'chinese_to_thai'],
  ['chinese', 'vietnamese', 'chinese_to_vietnamese'],
  ['korean', 'chinese', 'korean_to_chinese'],
  ['japanese', 'chinese', 'japanese_to_chinese'],
];

function learningDirection(task: string): string {
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

export function plainReply(messages: readonly PlannerMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const brief = last.length > 200 ? `${last.slice(0, 197)}...` : last;
  return `${PLANNER_MODEL_ID} is the sandbox's deterministic test model; it does not generate language. It received ${messages.length} message(s); the last user message was: "${brief}"`;
}

function targetLanguage(task: string): string {
  for (const [pattern, code] of LANGUAGES) if (pattern.test(task)) return code;
  return 'en';
}

function readExchanges(messages: readonly PlannerMessage[]): ToolExchange[] {
  const exchanges: ToolExchange[] = [];
  const pending = new Map<string, ToolExchange>();
  let lastJsonCall: ToolExchange | undefined;
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        const exchange: ToolExchange = {
          name: call.function?.name ?? '',
          arguments: parseObject(call.function?.arguments ?? '') ?? {},
          result: undefined,
          text: '',
        };
        exchanges.push(exchange);
        if (call.id) pending.set(call.id, exchange);
      }
      const json = parseObject(message.content ?? '');
      if (json && typeof json.tool === 'string') {
        lastJsonCall = {
          name: json.tool,
          arguments: (json.arguments as Record<string, unknown>) ?? {},
          result: undefined,
          text: '',
        };
        exchanges.push(lastJsonCall);
      }
    } else if (message.role === 'tool') {
      const exchange = pending.get(message.tool_call_id ?? '');
      if (exchange) fillResult(exchange, message.content ?? '');
    } else if (
      message.role === 'user' &&
      lastJsonCall &&
      /^(Result of |Tool result)/.test(message.content ?? '')
    ) {
      fillResult(lastJsonCall, (message.content ?? '').replace(/^[^\n]*\n/, ''));
      lastJsonCall = undefined;
    }
  }
  return exchanges;
}

function fillResult(exchange: ToolExchange, content: string): void {
  exchange.text = content;
  const marker = content.indexOf('structuredContent: ');
  exchange.result =
    marker >= 0 ? parseObject(content.slice(marker + 'structuredContent: '.length)) : parseObject(content);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.trim());
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The tools whose results carry a meeting's summary. */
const MEETING_TOOLS = [
  'summarize_meeting',
  'get_meeting',
  'retry_meeting',
  'resummarize_meeting',
  'retranslate_meeting',
];

function composeAnswer(exchanges: readonly ToolExchange[]): string {
  if (exchanges.length === 0) return 'There was nothing to do with the tools on offer for this task.';
  const lines = ['Done. What the tools reported:'];
  for (const exchange of exchanges) {
    const first = exchange.text.split('\n').find((line) => line.trim() !== '') ?? '(no text)';
    lines.push(`- ${exchange.name}: ${first.replace(/^ERROR from [a-z_]+: /, 'failed: ')}`);
  }
  /** The result of the last call of one of `tools` that has what `has` looks for. */
  const latestOf = (tools: readonly string[], has: (result: Record<string, unknown>) => boolean) =>
    [...exchanges]
      .reverse()
      .find((exchange) => tools.includes(exchange.name) && exchange.result && has(exchange.result))?.result;
  const meeting = latestOf(MEETING_TOOLS, (result) => typeof result.summary === 'object');
  const summary = meeting?.summary as Record<string, unknown> | undefined;
  if (summary) {
    const section = (title: string, items: unknown) => {
      if (!Array.isArray(items) || items.length === 0) return;
      lines.push('', `${title}:`);
      for (const item of items as Record<string, unknown>[]) {
        const owner =
          typeof item.owner === 'string'
            ? ` (${item.owner}${item.dueDate ? `, due ${item.dueDate}` : ''})`
            : '';
        lines.push(`- ${String(item.text ?? '')}${owner}`);
      }
    };
    section('Decisions', summary.decisions);
    section('Action items', summary.actionItems);
    section('Open questions', summary.openQuestions);
  }
  const reading = latestOf(['score_reading', 'get_reading_score'], (result) => result.done === true);
  if (reading && typeof reading.referenceWords === 'number') {
    const practise = ((reading.feedback as { practise?: unknown } | undefined)?.practise ?? []) as unknown[];
    lines.push(
      '',
      'What the student should practise:',
      practise.length > 0
        ? `- ${practise.map(String).join(', ')}`
        : '- nothing: every word was read as written',
      `- ${String(reading.correctWords)} of ${String(reading.referenceWords)} words read correctly`,
    );
  }
  const speech = latestOf(['transcribe_thai'], (result) => typeof result.text === 'string');
  if (speech && String(speech.text).trim() !== '') {
    lines.push('', 'What the Thai speech says:', `- ${String(speech.text).trim()}`);
  }
  const cards = latestOf(['create_flashcards', 'get_flashcards'], (result) => Array.isArray(result.segments));
  const segments = (cards?.segments ?? []) as { text?: unknown; translation?: unknown }[];
  if (segments.length > 0) {
    lines.push('', 'First flashcards:');
    for (const segment of segments.slice(0, 3)) {
      const translation = typeof segment.translation === 'string' ? ` — ${segment.translation}` : '';
      lines.push(`- ${String(segment.text ?? '')}${translation}`);
    }
  }
  const files = exchanges
    .map((exchange) => exchange.result?.path ?? exchange.result?.savedPath)
    .filter((value): value is string => typeof value === 'string');
  if (files.length > 0) lines.push('', 'Files:', ...files.map((file) => `- ${file}`));
  return lines.join('\n');
}
