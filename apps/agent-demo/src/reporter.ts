/**
 * How the demo talks to a person: one line per step as it happens, progress while a job runs, results in
 * brief — coloured, with the progress line redrawn in place, only on a terminal that wants it (see
 * output-style.ts). With --json, every event is one JSON object on its own line, written the moment it
 * happens. Every text passes through the secrets mask first: no key reaches the output, whatever a tool,
 * an endpoint or an error echoes.
 */
import { redactSecrets } from '@polymodal/core';
import type { OutputStyle } from './output-style.js';
import type { ReportedPart } from './task-prompts.js';

/** Where the agent's model runs. */
export type ModelSource = 'sandbox' | 'platform' | 'endpoint';

export type TraceEvent =
  | { type: 'platform'; baseUrl: string; embedded: boolean }
  | { type: 'model'; model: string; source: ModelSource; endpoint?: string }
  | { type: 'server'; server: string; protocolVersion: string; era: 'modern' | 'legacy' }
  | { type: 'task'; text: string; tools: number; scenario?: string; parts: ReportedPart[] }
  | { type: 'step'; step: number; maxSteps: number }
  | { type: 'message'; text: string }
  | { type: 'call'; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: 'progress'; tool: string; progress: number; total?: number; message?: string }
  | { type: 'result'; tool: string; ok: boolean; seconds: number; brief: string; structured?: unknown }
  | { type: 'note'; text: string }
  | { type: 'answer'; text: string }
  | { type: 'files'; paths: string[] }
  | { type: 'error'; message: string };

export interface Reporter {
  emit(event: TraceEvent): void;
  finish(): void;
}

/**
 * Shorter values are placeholders, not keys (`none`, `ollama`: what local model servers accept in place of
 * a key); masking them would garble ordinary words of the output.
 */
const MIN_SECRET_LENGTH = 8;

/**
 * Masks each secret as written and as it appears inside a JSON string (escaped), so that neither the
 * narrated run nor a --json line can carry it.
 */
export function createSecretMask(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH,
  );
  const all = [...known, ...known.map((secret) => JSON.stringify(secret).slice(1, -1))];
  return (text) => redactSecrets(text, all);
}

/** An absolute path to a file (POSIX or Windows), whatever the argument is called (`recording`, `video`). */
const LOCAL_FILE = /^(?:[A-Za-z]:)?[\\/][^\n]*\.[A-Za-z0-9]{1,5}$/;

/** Arguments in brief: long strings shortened, paths reduced to their file name. */
export function briefArguments(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      let text = typeof value === 'string' ? value : JSON.stringify(value);
      if (typeof value === 'string' && (key === 'path' || key.endsWith('Path') || LOCAL_FILE.test(value)))
        text = value.split(/[\\/]/).pop() ?? value;
      if (text.length > 40) text = `${text.slice(0, 37)}...`;
      return `${key}=${text}`;
    })
    .join(', ');
}

const MODEL_SOURCES: Record<ModelSource, string> = {
  sandbox: "the sandbox's deterministic planner",
  platform: "the platform's shared LLM",
  endpoint: 'OpenAI-compatible endpoint',
};

/** Erases the current terminal line and returns to its start. */
const ERASE_LINE = '\r\x1b[2K';

export function createConsoleReporter(options: {
  style: OutputStyle;
  /** Raw text out (lines end with `\n`); default stdout. */
  write?: (text: string) => void;
  mask?: (text: string) => string;
}): Reporter {
  const { style } = options;
  const mask = options.mask ?? ((text: string) => text);
  const out = options.write ?? ((text: string) => process.stdout.write(text));
  const paint = painter(style);
  let lastProgress = '';
  // A progress line drawn in place (redraw mode) and not yet ended.
  let openProgress = false;
  let answer = '';

  const line = (text: string) => {
    out(`${openProgress ? ERASE_LINE : ''}${mask(text)}\n`);
    openProgress = false;
  };
  const progress = (text: string) => {
    if (text === lastProgress) return;
    lastProgress = text;
    if (style.redraw) {
      out(`${ERASE_LINE}${mask(paint.dim(text))}`);
      openProgress = true;
    } else {
      line(paint.dim(text));
    }
  };

  return {
    emit(event) {
      if (event.type === 'call') lastProgress = '';
      if (event.type === 'progress') return progress(progressText(event));
      if (event.type === 'answer') answer = event.text;
      const text = consoleLine(event, { paint, answer });
      if (text !== undefined) line(text);
    },
    finish() {
      if (openProgress) out('\n');
      openProgress = false;
    },
  };
}

type Paint = (text: string) => string;

function painter(style: OutputStyle): { dim: Paint; bold: Paint; green: Paint; red: Paint } {
  const paint = (code: string) => (text: string) => (style.colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { dim: paint('2'), bold: paint('1'), green: paint('32'), red: paint('31') };
}

function progressText(event: Extract<TraceEvent, { type: 'progress' }>): string {
  const percent = event.total ? `${Math.round((event.progress / event.total) * 100)}%` : `${event.progress}`;
  return `  … ${event.message ?? percent}`;
}

/** The line an event is narrated with on the console, if it has one. */
function consoleLine(
  event: TraceEvent,
  { paint, answer }: { paint: ReturnType<typeof painter>; answer: string },
): string | undefined {
  const { dim, bold, green, red } = paint;
  switch (event.type) {
    case 'platform':
      return event.embedded
        ? `Platform: embedded sandbox at ${event.baseUrl} (simulated; no key, no network)`
        : `Platform: ${event.baseUrl}`;
    case 'model':
      return `Model: ${event.model} (${MODEL_SOURCES[event.source]}${event.endpoint ? ` at ${event.endpoint}` : ''})`;
    case 'task':
      return taskLines(event, dim);
    case 'message':
      return dim(`  model: ${event.text}`);
    case 'call':
      return `\n${bold('▸')} ${event.server} · ${bold(event.tool)} ${dim(briefArguments(event.arguments))}`;
    case 'result':
      return `  ${event.ok ? green('✓') : red('✗')} ${event.brief} ${dim(`(${event.seconds.toFixed(1)} s)`)}`;
    case 'note':
      return dim(`  · ${event.text}`);
    case 'answer':
      return `\n${event.text}`;
    case 'files': {
      // Files the answer already names are not listed twice.
      const unnamed = event.paths.filter((file) => !answer.includes(file));
      return unnamed.length > 0
        ? `\n${bold('Other files')}\n${unnamed.map((file) => `  ${file}`).join('\n')}`
        : undefined;
    }
    default:
      // 'server': which protocol generation each server speaks is a detail: --json carries it, and
      // --verbose shows it on stderr beside the servers' logs. 'step' draws nothing; 'error': the CLI
      // says it on stderr, and stdout stays the run's narration.
      return undefined;
  }
}

/**
 * The task: its words, or, when it comes from the servers' prompts, each prompt by name with its arguments
 * in brief (its text is long and the host's, not the person's) and the words beside them.
 */
function taskLines(event: Extract<TraceEvent, { type: 'task' }>, dim: Paint): string {
  const heading = `Task (${event.tools} tools available)`;
  if (!event.parts.some((part) => 'prompt' in part)) return `${heading}: ${event.text}`;
  const lines = event.parts.map((part) =>
    'prompt' in part
      ? `  /${part.prompt} ${dim(`(${part.server}) ${briefArguments(part.arguments)}`)}`
      : `  ${part.words}`,
  );
  return [`${heading}, from the servers' prompts:`, ...lines].join('\n');
}

/**
 * One JSON object per line, written as each event happens (stdout to a pipe or a file is written
 * synchronously by Node on Linux and macOS, so a line is out before the next step starts): `type`, the
 * event's fields, `seq` (1, 2, …) and `at` (ISO time).
 */
export function createJsonReporter(
  options: { write?: (text: string) => void; mask?: (text: string) => string; now?: () => Date } = {},
): Reporter {
  const mask = options.mask ?? ((text: string) => text);
  const out = options.write ?? ((text: string) => process.stdout.write(text));
  const now = options.now ?? (() => new Date());
  let seq = 0;
  return {
    emit(event) {
      seq += 1;
      out(`${mask(JSON.stringify({ ...event, seq, at: now().toISOString() }))}\n`);
    },
    finish() {},
  };
}
