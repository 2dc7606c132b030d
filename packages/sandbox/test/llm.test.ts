/**
 * Conformance of the shared LLM service and the documented policy of `sandbox-planner-1`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

async function post(body: unknown, key = sandbox.apiKey) {
  const response = await fetch(`${sandbox.url}/api/llm/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const TOOLS = ['summarize_meeting', 'get_meeting', 'export_meeting'].map((name) => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters: { type: 'object' } },
}));
const TASK =
  'Summarise the meeting at /data/media/sync.wav with a Thai translation and export the summary as Markdown.';

describe('shared LLM service', () => {
  it('lists the sandbox model and requires x-api-key', async () => {
    const models = await fetch(`${sandbox.url}/api/llm/v1/models`, {
      headers: { 'x-api-key': sandbox.apiKey },
    });
    expect(await models.json()).toEqual({
      object: 'list',
      data: [{ id: 'sandbox-planner-1', object: 'model', owned_by: 'polymodal-sandbox' }],
    });
    const anonymous = await fetch(`${sandbox.url}/api/llm/v1/models`);
    expect(anonymous.status).toBe(401);
    const bearer = await fetch(`${sandbox.url}/api/llm/v1/models`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(bearer.status).toBe(401);
  });

  it('answers plain chat at choices[0].message.content, and refuses bad requests', async () => {
    const ok = await post({
      model: 'sandbox-planner-1',
      messages: [{ role: 'user', content: 'hello' }],
      temperature: 0.3,
      max_tokens: 200,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.choices[0].message.content).toContain('hello');
    expect(ok.body.usage.total_tokens).toBeGreaterThan(0);
    expect((await post({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    expect((await post({ model: 'sandbox-planner-1', messages: [] })).status).toBe(400);
    expect(
      (await post({ model: 'sandbox-planner-1', messages: [{ role: 'user', content: 'x' }], temperature: 3 }))
        .status,
    ).toBe(400);
    expect(
      (await post({ model: 'sandbox-planner-1', messages: [{ role: 'user', content: 'x' }], stream: true }))
        .body.error,
    ).toMatch(/stream/);
  });

  it('plans native tool calls: summarise, keep waiting, export, then answer with the summary', async () => {
    const messages: any[] = [
      { role: 'system', content: 'agent' },
      { role: 'user', content: TASK },
    ];
    const turn = async () => {
      const reply = await post({ model: 'sandbox-planner-1', messages, tools: TOOLS });
      expect(reply.status).toBe(200);
      return reply.body.choices[0];
    };
    const respond = (choice: any, structured: unknown) => {
      messages.push(choice.message);
      const call = choice.message.tool_calls[0];
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: `ok\nstructuredContent: ${JSON.stringify(structured)}`,
      });
      return { name: call.function.name, arguments: JSON.parse(call.function.arguments) };
    };

    const first = await turn();
    expect(first.finish_reason).toBe('tool_calls');
    expect(
      respond(first, {
        jobId: 'm1',
        status: 'TRANSCRIBING',
        done: false,
        next: 'call get_meeting with jobId=m1',
      }),
    ).toEqual({
      name: 'summarize_meeting',
      arguments: { path: '/data/media/sync.wav', sourceLanguage: 'auto', targetLanguage: 'th' },
    });
    const summary = {
      decisions: [{ text: 'Ship Friday' }],
      actionItems: [{ text: 'Write notes', owner: 'Alice' }],
      openQuestions: [],
    };
    expect(respond(await turn(), { jobId: 'm1', status: 'COMPLETED', done: true, summary })).toEqual({
      name: 'get_meeting',
      arguments: { jobId: 'm1', waitSeconds: 40 },
    });
    expect(respond(await turn(), { path: '/out/sync-summary.md' })).toEqual({
      name: 'export_meeting',
      arguments: { jobId: 'm1', what: 'summary', format: 'md' },
    });
    const last = await turn();
    expect(last.finish_reason).toBe('stop');
    expect(last.message.content).toContain('Ship Friday');
    expect(last.message.content).toContain('Write notes (Alice)');
    expect(last.message.content).toContain('/out/sync-summary.md');
  });

  it('finds the meeting and the reading in one task and scores the reading after the meeting work', async () => {
    const task =
      'Score the Thai reading at /m/student.wav against "ฉันชอบอ่าน" after you summarise the meeting at /m/sync.mp4.';
    const tools = ['summarize_meeting', 'score_reading'].map((name) => ({
      type: 'function',
      function: { name },
    }));
    const first = await post({
      model: 'sandbox-planner-1',
      messages: [{ role: 'user', content: task }],
      tools,
    });
    const call = first.body.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('summarize_meeting');
    expect(JSON.parse(call.function.arguments).path).toBe('/m/sync.mp4');
    const second = await post({
      model: 'sandbox-planner-1',
      tools,
      messages: [
        { role: 'user', content: task },
        { role: 'assistant', content: null, tool_calls: [call] },
        {
          role: 'tool',
          tool_call_id: call.id,
          content: 'ok\nstructuredContent: {"jobId":"m9","status":"COMPLETED","done":true}',
        },
      ],
    });
    const reading = second.body.choices[0].message.tool_calls[0];
    expect(reading.function.name).toBe('score_reading');
    expect(JSON.parse(reading.function.arguments)).toEqual({
      studentAudioPath: '/m/student.wav',
      referenceText: 'ฉันชอบอ่าน',
    });
  });

  it('speaks the JSON tool-call protocol when the tools are described in the system prompt', async () => {
    const system =
      'Reply with {"tool": "<tool name>", "arguments": {...}} or {"answer": "..."}.\nTools:\n- summarize_meeting: Summarizes.\n- get_meeting: Reads.';
    const reply = await post({
      model: 'sandbox-planner-1',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: TASK },
      ],
    });
    expect(JSON.parse(reply.body.choices[0].message.content)).toEqual({
      tool: 'summarize_meeting',
      arguments: { path: '/data/media/sync.wav', sourceLanguage: 'auto', targetLanguage: 'th' },
    });
    expect(sandbox.control.counters().llmCompletions?.[sandbox.users[0]!.id]).toBeGreaterThan(0);
  });
});
