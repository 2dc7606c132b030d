/**
 * How the demo talks to a person: one line per step as it happens, progress while a job runs, results
 * in brief. With --json, the same events are collected into a machine-readable trace instead.
 */
export type TraceEvent =
  | { type: 'platform'; baseUrl: string; embedded: boolean }
  | { type: 'call'; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: 'progress'; tool: string; progress: number; total?: number; message?: string }
  | { type: 'result'; tool: string; ok: boolean; seconds: number; brief: string; structured?: unknown }
  | { type: 'model'; model: string }
  | { type: 'task'; text: string; tools: number }
  | { type: 'note'; text: string }
  | { type: 'answer'; text: string }
  | { type: 'files'; paths: string[] };

export interface Reporter {
  emit(event: TraceEvent): void;
  finish(): void;
}

const isTty = process.stdout.isTTY === true;
const dim = (text: string) => (isTty ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text: string) => (isTty ? `\x1b[1m${text}\x1b[0m` : text);
const green = (text: string) => (isTty ? `\x1b[32m${text}\x1b[0m` : text);
const red = (text: string) => (isTty ? `\x1b[31m${text}\x1b[0m` : text);

/** Arguments in brief: long strings shortened, paths reduced to their file name. */
export function briefArguments(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      let text = typeof value === 'string' ? value : JSON.stringify(value);
      if ((key === 'path' || key.endsWith('Path')) && typeof value === 'string')
        text = value.split(/[\\/]/).pop() ?? value;
      if (text.length > 40) text = `${text.slice(0, 37)}...`;
      return `${key}=${text}`;
    })
    .join(', ');
}

export function createConsoleReporter(
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Reporter {
  let lastProgress = '';
  let answer = '';
  return {
    emit(event) {
      switch (event.type) {
        case 'platform':
          write(
            event.embedded
              ? `Platform: embedded sandbox at ${event.baseUrl} (simulated; no key, no network)`
              : `Platform: ${event.baseUrl}`,
          );
          break;
        case 'call':
          lastProgress = '';
          write(
            `\n${bold('▸')} ${event.server} · ${bold(event.tool)} ${dim(briefArguments(event.arguments))}`,
          );
          break;
        case 'progress': {
          const percent = event.total
            ? `${Math.round((event.progress / event.total) * 100)}%`
            : `${event.progress}`;
          const line = `  … ${event.message ?? percent}`;
          if (line !== lastProgress) write(dim(line));
          lastProgress = line;
          break;
        }
        case 'result':
          write(
            `  ${event.ok ? green('✓') : red('✗')} ${event.brief} ${dim(`(${event.seconds.toFixed(1)} s)`)}`,
          );
          break;
        case 'model':
          write(`Model: ${event.model} (the platform's shared LLM)`);
          break;
        case 'task':
          write(`Task (${event.tools} tools available): ${event.text}`);
          break;
        case 'note':
          write(dim(`  · ${event.text}`));
          break;
        case 'answer':
          answer = event.text;
          write(`\n${event.text}`);
          break;
        case 'files': {
          // Files the answer already names are not listed twice.
          const unnamed = event.paths.filter((file) => !answer.includes(file));
          if (unnamed.length > 0)
            write(`\n${bold('Other files')}\n${unnamed.map((file) => `  ${file}`).join('\n')}`);
          break;
        }
      }
    },
    finish() {},
  };
}

export function createJsonReporter(
  write: (text: string) => void = (text) => process.stdout.write(text),
): Reporter & {
  events: TraceEvent[];
} {
  const events: TraceEvent[] = [];
  return {
    events,
    emit(event) {
      events.push(event);
    },
    finish() {
      write(`${JSON.stringify({ events }, null, 2)}\n`);
    },
  };
}
