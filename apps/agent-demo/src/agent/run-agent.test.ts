import { describe, expect, it } from 'vitest';
import type { Reporter, TraceEvent } from '../reporter.js';
import type { ChatMessage, ChatModel, ModelTurn, ToolSpec } from './chat-types.js';
import { parseJsonProtocol } from './json-protocol.js';
import { type AgentTool, runAgent } from './run-agent.js';

/** A model that plays back a script of raw text replies through the JSON protocol parser. */
function scriptedTextModel(replies: string[]): ChatModel & { seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  return {
    id: 'scripted',
    seen,
    async next(messages, tools): Promise<ModelTurn> {
      seen.push([...messages]);
      const reply = replies.shift();
      if (reply === undefined) throw new Error('script exhausted');
      return parseJsonProtocol(reply, tools);
    },
  };
}

/** A reporter that keeps the events, in order. */
function recorder(): Reporter & { events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return { events, emit: (event) => events.push(event), finish() {} };
}

function tool(
  name: string,
  behaviour: (args: Record<string, unknown>) => { ok: boolean; text: string },
): AgentTool & {
  calls: Record<string, unknown>[];
} {
  const calls: Record<string, unknown>[] = [];
  const spec: ToolSpec = { name, description: `${name} tool`, parameters: { type: 'object' } };
  return {
    spec,
    server: 'test',
    calls,
    async call(args) {
      calls.push(args);
      return { ...behaviour(args), structured: undefined };
    },
  };
}

describe('runAgent', () => {
  it('calls the tool the model asks for and hands the result back before the answer', async () => {
    const echo = tool('echo', (args) => ({ ok: true, text: `echo: ${String(args.text)}` }));
    const model = scriptedTextModel([
      '{"tool": "echo", "arguments": {"text": "hello"}}',
      '```json\n{"answer": "The tool said hello."}\n```',
    ]);
    const run = await runAgent({
      model,
      tools: [echo],
      task: 'say hello',
      maxSteps: 5,
      reporter: recorder(),
    });
    expect(run).toMatchObject({ stopped: 'answer', answer: 'The tool said hello.', steps: 2 });
    expect(echo.calls).toEqual([{ text: 'hello' }]);
    const lastPrompt = model.seen[1] ?? [];
    expect(lastPrompt.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('echo: hello'),
    });
  });

  it("opens the conversation with a prompt's messages, in order, after the system prompt", async () => {
    const model = scriptedTextModel(['{"answer": "Done."}']);
    const task: ChatMessage[] = [
      { role: 'user', content: 'Write the minutes. 1. Call summarize_meeting with {"path":"/m/a.wav"}.' },
      { role: 'user', content: 'Also export the transcript.' },
    ];
    await runAgent({ model, tools: [], task, maxSteps: 2, reporter: recorder() });
    expect(model.seen[0]?.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(model.seen[0]?.slice(1)).toEqual(task);
  });

  it('reports each step, what the model says beside its calls, the call and its result, in order', async () => {
    const echo = tool('echo', () => ({ ok: true, text: 'echo: hi' }));
    const turns: ModelTurn[] = [
      {
        kind: 'tool_calls',
        protocol: 'native',
        content: 'Let me echo first.',
        calls: [{ id: 'n1', name: 'echo', arguments: { text: 'hi' } }],
      },
      { kind: 'answer', text: 'Echoed.' },
    ];
    const model: ChatModel = { id: 'native', next: async () => turns.shift() as ModelTurn };
    const reporter = recorder();
    const spied: AgentTool = {
      ...echo,
      call: async (args) => {
        reporter.emit({ type: 'note', text: 'tool ran' });
        return echo.call(args);
      },
    };
    await runAgent({ model, tools: [spied], task: 't', maxSteps: 4, reporter });
    expect(reporter.events).toEqual([
      { type: 'step', step: 1, maxSteps: 4 },
      { type: 'message', text: 'Let me echo first.' },
      { type: 'note', text: 'tool ran' },
      { type: 'step', step: 2, maxSteps: 4 },
    ]);
  });

  it('returns a tool error to the model, which can recover', async () => {
    const flaky = tool('convert', (args) =>
      args.format === 'srt'
        ? { ok: true, text: 'saved out.srt' }
        : { ok: false, text: 'format must be srt or vtt' },
    );
    const model = scriptedTextModel([
      '{"tool": "convert", "arguments": {"format": "doc"}}',
      '{"tool": "convert", "arguments": {"format": "srt"}}',
      '{"answer": "Saved out.srt."}',
    ]);
    const run = await runAgent({
      model,
      tools: [flaky],
      task: 'convert',
      maxSteps: 5,
      reporter: recorder(),
    });
    expect(run.stopped).toBe('answer');
    expect(run.toolCalls.map((call) => call.ok)).toEqual([false, true]);
    const afterError = model.seen[1]?.at(-1);
    expect(afterError).toMatchObject({
      content: expect.stringContaining('ERROR from convert: format must be srt or vtt'),
    });
  });

  it('stops at the step limit', async () => {
    const ping = tool('ping', () => ({ ok: true, text: 'pong' }));
    const model = scriptedTextModel(Array.from({ length: 10 }, () => '{"tool": "ping", "arguments": {}}'));
    const run = await runAgent({
      model,
      tools: [ping],
      task: 'ping forever',
      maxSteps: 3,
      reporter: recorder(),
    });
    expect(run).toMatchObject({ stopped: 'step-limit', steps: 3 });
    expect(ping.calls).toHaveLength(3);
  });

  it('asks again after a malformed reply and gives up after repeated ones', async () => {
    const ping = tool('ping', () => ({ ok: true, text: 'pong' }));
    const recovered = scriptedTextModel(['{"tool": "ping", "arguments": ', '{"answer": "done"}']);
    const reporter = recorder();
    const run = await runAgent({ model: recovered, tools: [ping], task: 't', maxSteps: 5, reporter });
    expect(run).toMatchObject({ stopped: 'answer', answer: 'done' });
    expect(recovered.seen[1]?.at(-1)).toMatchObject({ content: expect.stringContaining('not valid JSON') });
    expect(reporter.events.some((event) => event.type === 'note')).toBe(true);

    const hopeless = scriptedTextModel([
      '{"tool": "nope"}',
      '{"x": 1}',
      '{"tool": "ping", "arguments": [1]}',
      '{"answer": "late"}',
    ]);
    const stopped = await runAgent({ model: hopeless, tools: [ping], task: 't', maxSteps: 10, reporter });
    expect(stopped.stopped).toBe('malformed');
    expect(ping.calls).toHaveLength(0);
  });

  it('treats plain prose as the final answer', async () => {
    const model = scriptedTextModel(['All done, nothing to call.']);
    const run = await runAgent({
      model,
      tools: [],
      task: 't',
      maxSteps: 2,
      reporter: recorder(),
    });
    expect(run).toMatchObject({ stopped: 'answer', answer: 'All done, nothing to call.', steps: 1 });
  });
});
