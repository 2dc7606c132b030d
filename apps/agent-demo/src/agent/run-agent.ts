/**
 * The agent loop: model → tool calls → results → model, until the model answers or the step limit is
 * reached. Tool errors go back to the model as results it can act on; a malformed model reply is answered
 * with a correction, at most twice in a row.
 */
import type { Reporter } from '../reporter.js';
import type { ChatMessage, ChatModel, ModelTurn, ToolCall, ToolSpec } from './chat-types.js';
import { describeJsonProtocol } from './json-protocol.js';

export interface AgentToolResult {
  ok: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

export interface AgentTool {
  spec: ToolSpec;
  server: string;
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<AgentToolResult>;
}

export interface AgentRun {
  answer: string;
  /** Why the loop ended. */
  stopped: 'answer' | 'step-limit' | 'malformed';
  steps: number;
  toolCalls: { name: string; ok: boolean; structured: Record<string, unknown> | undefined }[];
}

/** Tool results handed back to the model are cut to this size; files and pages are fetched by tools. */
const MAX_RESULT_CHARS = 6_000;
const MAX_MALFORMED_IN_A_ROW = 2;

export function agentSystemPrompt(tools: readonly ToolSpec[]): string {
  return [
    'You are the Polymodal demo agent. You help the user by calling the tools of the Polymodal platform:',
    'meeting summaries, videos, video flashcards, speech synthesis, reading scores and Thai speech recognition.',
    'Call one tool at a time when a later call needs an earlier result. Use file paths exactly as given.',
    'When a tool returns done=false, call the tool it names in "next" to keep waiting.',
    'Finish with a short answer for the user that names the files produced.',
    '',
    describeJsonProtocol(tools),
  ].join('\n');
}

export async function runAgent(options: {
  model: ChatModel;
  tools: readonly AgentTool[];
  /** The person's request: words, or the opening messages (a prompt's, as `prompts/get` returned them). */
  task: string | readonly ChatMessage[];
  maxSteps: number;
  reporter: Reporter;
  signal?: AbortSignal;
}): Promise<AgentRun> {
  const { model, reporter, signal } = options;
  const specs = options.tools.map((tool) => tool.spec);
  const byName = new Map(options.tools.map((tool) => [tool.spec.name, tool]));
  const messages: ChatMessage[] = [
    { role: 'system', content: agentSystemPrompt(specs) },
    ...(typeof options.task === 'string' ? [{ role: 'user' as const, content: options.task }] : options.task),
  ];
  const toolCalls: AgentRun['toolCalls'] = [];
  let malformedInARow = 0;

  for (let step = 1; step <= options.maxSteps; step++) {
    signal?.throwIfAborted();
    reporter.emit({ type: 'step', step, maxSteps: options.maxSteps });
    const turn: ModelTurn = await model.next(messages, specs, signal);
    if (turn.kind === 'answer') {
      return { answer: turn.text, stopped: 'answer', steps: step, toolCalls };
    }
    if (turn.kind === 'malformed') {
      malformedInARow += 1;
      reporter.emit({
        type: 'note',
        text: `The model's reply could not be used (${turn.problem}); asking again.`,
      });
      if (malformedInARow > MAX_MALFORMED_IN_A_ROW) {
        return {
          answer: `Stopped: the model gave ${malformedInARow} unusable replies in a row (last: ${turn.problem}).`,
          stopped: 'malformed',
          steps: step,
          toolCalls,
        };
      }
      messages.push({ role: 'assistant', content: turn.raw });
      messages.push({
        role: 'user',
        content: `Your last reply could not be used: ${turn.problem}. Reply with {"tool": ..., "arguments": {...}} or {"answer": ...}.`,
      });
      continue;
    }
    malformedInARow = 0;
    // What a model says beside its tool calls ("First I will list the models…") is part of the trace.
    if (turn.content?.trim()) reporter.emit({ type: 'message', text: turn.content.trim() });
    if (turn.protocol === 'native') {
      messages.push({
        role: 'assistant',
        content: turn.content,
        tool_calls: turn.calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      });
    } else {
      const call = turn.calls[0] as ToolCall;
      messages.push({
        role: 'assistant',
        content: JSON.stringify({ tool: call.name, arguments: call.arguments }),
      });
    }
    for (const call of turn.calls) {
      const result = await invoke(byName, call, signal);
      toolCalls.push({ name: call.name, ok: result.ok, structured: result.structured });
      const content = resultForModel(call, result);
      if (turn.protocol === 'native') messages.push({ role: 'tool', tool_call_id: call.id, content });
      else messages.push({ role: 'user', content: `Result of ${call.name}:\n${content}` });
    }
  }
  return {
    answer: `Stopped after ${options.maxSteps} steps without a final answer; the tool results above are complete.`,
    stopped: 'step-limit',
    steps: options.maxSteps,
    toolCalls,
  };
}

async function invoke(
  byName: ReadonlyMap<string, AgentTool>,
  call: ToolCall,
  signal: AbortSignal | undefined,
): Promise<AgentToolResult> {
  const tool = byName.get(call.name);
  if (!tool) {
    return {
      ok: false,
      text: `There is no tool named "${call.name}". Available: ${[...byName.keys()].join(', ')}.`,
      structured: undefined,
    };
  }
  return tool.call(call.arguments, signal);
}

function resultForModel(call: ToolCall, result: AgentToolResult): string {
  const parts = [result.ok ? result.text : `ERROR from ${call.name}: ${result.text}`];
  if (result.structured) parts.push(`structuredContent: ${JSON.stringify(result.structured)}`);
  const text = parts.join('\n');
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated]` : text;
}
