/**
 * The JSON tool-call protocol, for endpoints that answer only with text: the system prompt asks the model
 * to reply with exactly one JSON object, either
 *   {"tool": "<tool name>", "arguments": {...}}      to call a tool, or
 *   {"answer": "<final answer for the user>"}       to finish.
 * A reply may wrap that object in a ```json fence. Anything else that is not JSON is taken as a final answer;
 * JSON of another shape, or a call of an unknown tool, is malformed and the model is asked again.
 */
import type { ModelTurn, ToolSpec } from './chat-types.js';

export function describeJsonProtocol(tools: readonly ToolSpec[]): string {
  const list = tools
    .map(
      (tool) =>
        `- ${tool.name}: ${firstSentence(tool.description)}\n  arguments schema: ${JSON.stringify(tool.parameters)}`,
    )
    .join('\n');
  return [
    'You can use tools. To call one, reply with exactly one JSON object and nothing else:',
    '{"tool": "<tool name>", "arguments": { ... }}',
    'You will receive the tool result in the next message. When you are done, reply with:',
    '{"answer": "<your final answer for the user>"}',
    'Tools:',
    list,
  ].join('\n');
}

let jsonCallCounter = 0;

export function parseJsonProtocol(text: string, tools: readonly ToolSpec[]): ModelTurn {
  const trimmed = stripFence(text.trim());
  if (!trimmed.startsWith('{')) return { kind: 'answer', text: text.trim() };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: 'malformed', raw: text, problem: 'the reply starts like JSON but is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'malformed', raw: text, problem: 'the reply is not a JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (typeof record.answer === 'string') return { kind: 'answer', text: record.answer };
  if (typeof record.tool === 'string') {
    if (!tools.some((tool) => tool.name === record.tool)) {
      return { kind: 'malformed', raw: text, problem: `there is no tool named "${record.tool}"` };
    }
    const args = record.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { kind: 'malformed', raw: text, problem: '"arguments" must be a JSON object' };
    }
    jsonCallCounter += 1;
    return {
      kind: 'tool_calls',
      protocol: 'json',
      content: null,
      calls: [
        { id: `json_call_${jsonCallCounter}`, name: record.tool, arguments: args as Record<string, unknown> },
      ],
    };
  }
  return {
    kind: 'malformed',
    raw: text,
    problem: 'expected {"tool": ..., "arguments": ...} or {"answer": ...}',
  };
}

function stripFence(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced ? (fenced[1] ?? '').trim() : text;
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
