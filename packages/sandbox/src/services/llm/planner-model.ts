/**
 * `sandbox-planner-1`: the sandbox's deterministic chat model. It does not understand language; it follows
 * a small, documented policy so that an agent can run end to end offline and tests can predict every turn.
 *
 * Given the conversation and the tools on offer (native OpenAI `tools`, or the JSON protocol described in a
 * system message as lines `- <tool name>: ...`), each turn it picks the first rule that applies. Rule 1 comes
 * first; then the person's messages (the user messages that are not tool results: a task in words, the
 * messages of the prompts a host fetched) are read in order, and the first that still asks for a call gives
 * it: a message that spells out its steps through rule S, a message in free words through rules 2 to 7
 * ("the task" there is that message alone). When no message asks for anything more, rule 8 answers.
 *  1. Keep waiting: the latest tool result says `done: false`, carries a `jobId` and its `next` names an
 *     offered tool → call that tool with `{jobId, waitSeconds: 40}`.
 *  S. Follow the steps: sentences that start "Call <tool> with" and give the arguments as a JSON object, or
 *     as "that jobId" (the job the step before started) and JSON members (`"what": "summary"`), as the
 *     servers' prompts write them (see prompt-steps.ts). Each step whose tool is offered is taken once, in
 *     the order written, with exactly those arguments, unless a call of that tool with those arguments was
 *     made already (not merely a call of that tool: meeting_minutes and translate_meeting both export, one
 *     the summary and the other the translation). A step that adds `adding my text as "X"` takes X from
 *     the person's reply; until they replied, the planner answers asking for it. Calls written only under a condition ("While a result
 *     says done=false, call get_meeting …") are not steps: rule 1 does the waiting.
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

import { composeAnswer } from './compose-answer.js';
import {
  type PersonMessage,
  type PlannerMessage,
  type PlannerTurn,
  readConversation,
} from './conversation.js';
import { followSteps } from './follow-steps.js';
import { planVideo } from './plan-video.js';
import {
  exportMeeting,
  keepWaiting,
  makeFlashcards,
  type PlanningInput,
  scoreReading,
  speakActionItems,
  summarizeMeeting,
  transcribeThai,
} from './planner-rules.js';
import { readSteps } from './prompt-steps.js';
import { FLASHCARDS, MAKE_VIDEO } from './task-text.js';

export type { PlannerMessage, PlannerTurn };

export const PLANNER_MODEL_ID = 'sandbox-planner-1';

/** Rule 6, only for a task that asks to make a video and not for flashcards. */
function makeVideo({ task, offered, exchanges }: PlanningInput): PlannerTurn | undefined {
  if (FLASHCARDS.test(task) || !MAKE_VIDEO.test(task)) return undefined;
  return planVideo(task, offered, exchanges);
}

/** Rules 2 to 7, for a message in free words, in the order they are tried; the first that answers wins. */
const FREE_WORDS_RULES: readonly ((input: PlanningInput) => PlannerTurn | undefined)[] = [
  summarizeMeeting,
  exportMeeting,
  speakActionItems,
  scoreReading,
  transcribeThai,
  makeVideo,
  makeFlashcards,
];

/** Tools named in a JSON-protocol system prompt (`- name: description` lines). */
export function toolsFromPrompt(system: string): string[] {
  return [...system.matchAll(/^- ([a-z][a-z0-9_]*):/gm)].map((match) => match[1] as string);
}

export function planTurn(messages: readonly PlannerMessage[], tools: readonly string[]): PlannerTurn {
  const { exchanges, requests } = readConversation(messages);
  const offered = new Set(tools);
  const called = (name: string) => exchanges.filter((exchange) => exchange.name === name);
  const waiting = keepWaiting({ task: '', exchanges, offered, called });
  if (waiting) return waiting;
  for (const [index, request] of requests.entries()) {
    const steps = readSteps(request.text);
    const turn =
      steps.length > 0
        ? followSteps({ steps, exchanges, offered, reply: replyAfter(requests, index) })
        : firstRule({ task: request.text, exchanges, offered, called });
    if (turn) return turn;
  }
  return { kind: 'answer', text: composeAnswer(exchanges) };
}

function firstRule(input: PlanningInput): PlannerTurn | undefined {
  for (const rule of FREE_WORDS_RULES) {
    const turn = rule(input);
    if (turn) return turn;
  }
  return undefined;
}

/** The person's first message in words after the model answered them, following the message at `index`. */
function replyAfter(requests: readonly PersonMessage[], index: number): string | undefined {
  const asked = requests[index]?.answersBefore ?? 0;
  return requests
    .slice(index + 1)
    .find((request) => request.answersBefore > asked && readSteps(request.text).length === 0)?.text;
}

export function plainReply(messages: readonly PlannerMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const brief = last.length > 200 ? `${last.slice(0, 197)}...` : last;
  return `${PLANNER_MODEL_ID} is the sandbox's deterministic test model; it does not generate language. It received ${messages.length} message(s); the last user message was: "${brief}"`;
}
