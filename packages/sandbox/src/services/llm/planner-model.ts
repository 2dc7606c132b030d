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
 *  6. Otherwise answer: what each tool reported (first line), the summary's decisions, action items and open
 *     questions when a meeting result carries them, and the files written.
 * Without tools it answers plain text that says what it is and echoes the request briefly.
 */

import { TTS_LANGUAGES as SPEECH_LANGUAGES } from '@polymodal/core';
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

  const meetingAt = task.search(/\bmeeting\b/i);
  const recording =
    RECORDING_PATH.exec(meetingAt >= 0 ? task.slice(meetingAt) : task)?.[1] ?? RECORDING_PATH.exec(task)?.[1];
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

  return { kind: 'answer', text: composeAnswer(exchanges) };
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

function composeAnswer(exchanges: readonly ToolExchange[]): string {
  if (exchanges.length === 0) return 'There was nothing to do with the tools on offer for this task.';
  const lines = ['Done. What the tools reported:'];
  for (const exchange of exchanges) {
    const first = exchange.text.split('\n').find((line) => line.trim() !== '') ?? '(no text)';
    lines.push(`- ${exchange.name}: ${first.replace(/^ERROR from [a-z_]+: /, 'failed: ')}`);
  }
  const meeting = [...exchanges].reverse().find((exchange) => exchange.result?.summary)?.result;
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
  const files = exchanges
    .map((exchange) => exchange.result?.path ?? exchange.result?.savedPath)
    .filter((value): value is string => typeof value === 'string');
  if (files.length > 0) lines.push('', 'Files:', ...files.map((file) => `- ${file}`));
  return lines.join('\n');
}
