import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from './chat-types.js';
import { type ChatCompletionRequest, createOpenAiModel } from './openai-model.js';

const tools: ToolSpec[] = [
  { name: 'get_meeting', description: 'Reads a meeting.', parameters: { type: 'object' } },
];
const messages: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'task' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'get_meeting', arguments: '{"jobId":"m1"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'COMPLETED' },
];
class Refused extends Error {}

describe('createOpenAiModel', () => {
  it('uses native tool calls when the endpoint returns them', async () => {
    const requests: ChatCompletionRequest[] = [];
    const model = createOpenAiModel({
      model: 'm',
      isRequestRefused: () => false,
      complete: async (request) => {
        requests.push(request);
        return {
          choices: [
            {
              message: {
                content: null,
                tool_calls: [
                  {
                    id: 'x',
                    type: 'function',
                    function: { name: 'get_meeting', arguments: '{"jobId":"m2"}' },
                  },
                ],
              },
            },
          ],
        };
      },
    });
    const turn = await model.next(messages, tools);
    expect(turn).toEqual({
      kind: 'tool_calls',
      protocol: 'native',
      content: null,
      calls: [{ id: 'x', name: 'get_meeting', arguments: { jobId: 'm2' } }],
    });
    expect(requests[0]?.tools?.[0]?.function.name).toBe('get_meeting');
  });

  it('falls back to the JSON protocol for good when the endpoint refuses the tools field', async () => {
    const requests: ChatCompletionRequest[] = [];
    const model = createOpenAiModel({
      model: 'm',
      isRequestRefused: (error) => error instanceof Refused,
      complete: async (request) => {
        requests.push(request);
        if (request.tools) throw new Refused('400');
        return {
          choices: [{ message: { content: '{"tool": "get_meeting", "arguments": {"jobId": "m3"}}' } }],
        };
      },
    });
    const first = await model.next(messages, tools);
    expect(first).toMatchObject({
      kind: 'tool_calls',
      protocol: 'json',
      calls: [{ arguments: { jobId: 'm3' } }],
    });
    expect(model.protocol).toBe('json');
    // The retried request carries no native tool messages, and later turns do not offer tools again.
    expect(requests[1]?.messages.some((message) => message.role === 'tool')).toBe(false);
    await model.next(messages, tools);
    expect(requests).toHaveLength(3);
    expect(requests[2]?.tools).toBeUndefined();
  });

  it('reports tool-call arguments that are not JSON as malformed', async () => {
    const model = createOpenAiModel({
      model: 'm',
      isRequestRefused: () => false,
      complete: async () => ({
        choices: [
          { message: { tool_calls: [{ id: 'x', function: { name: 'get_meeting', arguments: '{oops' } }] } },
        ],
      }),
    });
    expect(await model.next(messages, tools)).toMatchObject({ kind: 'malformed' });
  });

  it('rethrows errors other than a refused request', async () => {
    const model = createOpenAiModel({
      model: 'm',
      isRequestRefused: () => false,
      complete: async () => {
        throw new Error('503');
      },
    });
    await expect(model.next(messages, tools)).rejects.toThrow('503');
  });
});
