/**
 * The steps a message spells out, as the servers' prompts write them: sentences that start "Call <tool> with"
 * and give the arguments as a JSON object ("1. Call score_reading with {"studentAudioPath": ...}."), or as the
 * job of the step before and JSON members ("Call export_meeting with that jobId, "what": "summary" and
 * "format": "md"."). A call the message makes only on a condition ("While …, call get_meeting …", "first
 * call …") starts in lower case and is not a step: rule 1 follows a job's own `next` instead.
 */

export interface PromptStep {
  tool: string;
  /** The arguments as written. */
  arguments: Record<string, unknown>;
  /** "with that jobId" / "with its jobId": the job the step before started goes in as `jobId`. */
  takesPreviousJob: boolean;
  /** `adding my text as "X"`: argument X is a text the person gives when asked, not written in the step. */
  askedArgument?: string;
}

/** "Call <tool> with " at the start of a line (after a step number) or of a sentence. */
const STEP_START = /(?:^|\n|[.!?:]\s+)[ \t]*(?:\d+\.[ \t]+)?Call ([a-z][a-z0-9_]*) with /g;
const PREVIOUS_JOB = /^(?:that|its|the same) jobId\b/;
const ASKED_ARGUMENT = /^,? adding my text as "([A-Za-z_][A-Za-z0-9_]*)"/;
/** One JSON member written in a sentence: `"key": value` (a string, number, boolean or null). */
const MEMBER = /"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g;

/** The steps of a message, in the order written; none for a message in free words. */
export function readSteps(text: string): PromptStep[] {
  const steps: PromptStep[] = [];
  for (const match of text.matchAll(STEP_START)) {
    const rest = text.slice((match.index ?? 0) + match[0].length);
    const step = readArguments(match[1] as string, rest);
    if (step) steps.push(step);
  }
  return steps;
}

function readArguments(tool: string, rest: string): PromptStep | undefined {
  if (rest.startsWith('{')) {
    const end = endOfObject(rest);
    const parsed = end === undefined ? undefined : parseObject(rest.slice(0, end));
    if (!parsed) return undefined;
    const asked = ASKED_ARGUMENT.exec(rest.slice(end))?.[1];
    return { tool, arguments: parsed, takesPreviousJob: false, ...(asked ? { askedArgument: asked } : {}) };
  }
  const previous = PREVIOUS_JOB.exec(rest);
  if (!previous) return undefined;
  const sentence = rest.slice(previous[0].length, endOfSentence(rest));
  const args: Record<string, unknown> = {};
  for (const member of sentence.matchAll(MEMBER)) {
    args[member[1] as string] = JSON.parse(member[2] as string) as unknown;
  }
  return { tool, arguments: args, takesPreviousJob: true };
}

/** The index just past the JSON object `text` starts with, strings and nesting respected. */
function endOfObject(text: string): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** Where the sentence `text` starts ends: a full stop (or ! ?) outside quotes, followed by a space or the end. */
function endOfSentence(text: string): number {
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (
      char === '\n' ||
      ('.!?'.includes(char) && /^(?:\s|$)/.test(text.slice(index + 1, index + 2)))
    ) {
      return index;
    }
  }
  return text.length;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
