/**
 * Rules 1 to 5 and 7 of the planner's policy (see planner-model.ts), one function each: a rule answers
 * the tool call it asks for, or undefined when it does not apply and the next rule is tried.
 */
import { TTS_LANGUAGES as SPEECH_LANGUAGES } from '@polymodal/core/constants';
import { DETECTED_LANGUAGE, translateText } from '../meeting/phrase-translations.js';
import type { PlannerTurn, ToolExchange } from './conversation.js';
import {
  FLASHCARDS,
  learningDirection,
  RECORDING_PATH,
  targetLanguage,
  URL_IN_TEXT,
  VIDEO_PATH,
  YOUTUBE_HOST,
} from './task-text.js';

/** What every rule looks at: the task, the tools on offer and the calls made so far. */
export interface PlanningInput {
  task: string;
  exchanges: readonly ToolExchange[];
  offered: ReadonlySet<string>;
  /** The calls made so far to one tool. */
  called(name: string): ToolExchange[];
}

/** A tool that is offered and was not called yet. */
const available = (input: PlanningInput, name: string) =>
  input.offered.has(name) && input.called(name).length === 0;

/** Rule 1: the latest result is an unfinished job whose `next` names an offered tool. */
export function keepWaiting({ exchanges, offered }: PlanningInput): PlannerTurn | undefined {
  const latest = exchanges.at(-1);
  if (latest?.result?.done !== false || typeof latest.result.jobId !== 'string') return undefined;
  const next = typeof latest.result.next === 'string' ? latest.result.next : '';
  const tool = [...offered].find((name) => next.includes(name));
  if (!tool) return undefined;
  return { kind: 'tool_call', name: tool, arguments: { jobId: latest.result.jobId, waitSeconds: 40 } };
}

/** The meeting recording a task names; in a flashcards task, only a path after the word "meeting". */
function meetingRecording(task: string): string | undefined {
  const meetingAt = task.search(/\bmeeting\b/i);
  // The video of a flashcards task is not a meeting: then only a path after the word "meeting" is one.
  if (FLASHCARDS.test(task)) {
    return meetingAt >= 0 ? RECORDING_PATH.exec(task.slice(meetingAt))?.[1] : undefined;
  }
  return (
    RECORDING_PATH.exec(meetingAt >= 0 ? task.slice(meetingAt) : task)?.[1] ?? RECORDING_PATH.exec(task)?.[1]
  );
}

/** Rule 2: summarise the meeting recording the task names. */
export function summarizeMeeting(input: PlanningInput): PlannerTurn | undefined {
  const { task } = input;
  const recording = meetingRecording(task);
  const title = /\btitled\s+"([^"]{1,200})"/i.exec(task)?.[1];
  if (!recording || !available(input, 'summarize_meeting')) return undefined;
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

/** Rule 3: export each format the task asks for, once, from the latest completed meeting. */
export function exportMeeting({ task, exchanges, offered, called }: PlanningInput): PlannerTurn | undefined {
  const completed = [...exchanges].reverse().find((exchange) => exchange.result?.status === 'COMPLETED');
  if (!completed || !offered.has('export_meeting') || typeof completed.result?.jobId !== 'string') {
    return undefined;
  }
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
  return undefined;
}

/** The action items as one text to speak in `language`, each translated and ended as a sentence. */
function spokenActionItems(items: readonly { text?: unknown; owner?: unknown }[], language: string): string {
  return items
    .map((item) => {
      const translated = translateText(String(item.text ?? ''), language, DETECTED_LANGUAGE);
      // Thai ends a sentence with a space; other scripts get a full stop so the parts split cleanly.
      const sentence = language === 'th' || /[.!?。]$/.test(translated) ? translated : `${translated}.`;
      return typeof item.owner === 'string' && item.owner !== '' ? `${item.owner}: ${sentence}` : sentence;
    })
    .join(' ');
}

/** Rule 3b: speak a meeting's action items when the task asks for them as speech. */
export function speakActionItems(input: PlanningInput): PlannerTurn | undefined {
  const { task, exchanges } = input;
  const meeting = [...exchanges].reverse().find((exchange) => exchange.result?.summary)?.result;
  const actionItems = (meeting?.summary as { actionItems?: unknown } | undefined)?.actionItems;
  if (
    !Array.isArray(actionItems) ||
    actionItems.length === 0 ||
    !/\baction items\b/i.test(task) ||
    !/\bspeech\b|\bsynthesi[sz]e\b|\bread (?:them )?out\b/i.test(task) ||
    !available(input, 'synthesize_speech')
  ) {
    return undefined;
  }
  const named = /\bspeech in (\w+)/i.exec(task)?.[1];
  const wanted = named ? targetLanguage(named) : targetLanguage(task);
  const language = wanted === 'zh-cn' ? 'zh' : wanted;
  const spoken = (SPEECH_LANGUAGES as readonly string[]).includes(language) ? language : 'en';
  const text = spokenActionItems(actionItems as { text?: unknown; owner?: unknown }[], spoken);
  return { kind: 'tool_call', name: 'synthesize_speech', arguments: { text, language: spoken } };
}

/** Rule 4: score a reading named after the word "reading" against a quoted text. */
export function scoreReading(input: PlanningInput): PlannerTurn | undefined {
  const { task } = input;
  const readingAt = task.search(/\breading\b/i);
  const readingPath = readingAt >= 0 ? RECORDING_PATH.exec(task.slice(readingAt))?.[1] : undefined;
  const referenceText = /\bagainst (?:the text )?"([^"]{1,500})"/i.exec(task)?.[1];
  if (!readingPath || !referenceText || !available(input, 'score_reading')) return undefined;
  return {
    kind: 'tool_call',
    name: 'score_reading',
    arguments: { studentAudioPath: readingPath, referenceText },
  };
}

/** Rule 5: transcribe the audio named after the word "transcribe". */
export function transcribeThai(input: PlanningInput): PlannerTurn | undefined {
  const { task } = input;
  const transcribeAt = task.search(/\btranscribe\b/i);
  const speechPath = transcribeAt >= 0 ? RECORDING_PATH.exec(task.slice(transcribeAt))?.[1] : undefined;
  if (!speechPath || !available(input, 'transcribe_thai')) return undefined;
  return { kind: 'tool_call', name: 'transcribe_thai', arguments: { audioPath: speechPath } };
}

/** Rule 7: flashcards from the first URL, else the first local video path, of a flashcards task. */
export function makeFlashcards(input: PlanningInput): PlannerTurn | undefined {
  const { task } = input;
  if (!FLASHCARDS.test(task) || !available(input, 'create_flashcards')) return undefined;
  const video = URL_IN_TEXT.exec(task)?.[1] ?? VIDEO_PATH.exec(task)?.[1];
  if (!video) return undefined;
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
