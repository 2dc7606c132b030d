/**
 * The shared LLM client against a loopback server: what goes on the wire, what is refused before it,
 * and which failures are repeated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPolymodal, type Polymodal, ValidationError } from '../src/index.js';
import { readBody, sendJson, startServer, type TestServer } from './helpers/start-server.js';

const KEY = 'pm_live_llmsecret42';
let server: TestServer | undefined;
let polymodal: Polymodal | undefined;

afterEach(async () => {
  await polymodal?.close();
  await server?.close();
  polymodal = undefined;
  server = undefined;
});

function open(url: string) {
  polymodal = createPolymodal({
    baseUrl: url,
    apiKey: KEY,
    ledger: false,
    http: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  return polymodal;
}

describe('llm client', () => {
  it('lists models and sends chat requests with x-api-key and the documented fields only', async () => {
    const bodies: unknown[] = [];
    server = await startServer(async (request, response) => {
      if (request.url === '/api/llm/v1/models') {
        sendJson(response, 200, {
          object: 'list',
          data: [{ id: 'pool-small', object: 'model', owned_by: 'pool' }],
        });
        return;
      }
      bodies.push(JSON.parse(await readBody(request)));
      sendJson(response, 200, { choices: [{ message: { role: 'assistant', content: 'สวัสดี' } }], extra: 1 });
    });
    const { llm } = open(server.url);
    expect((await llm.models()).data.map((model) => model.id)).toEqual(['pool-small']);
    const text = await llm.complete('Say hello in Thai', {
      model: 'pool-small',
      temperature: 0.2,
      maxTokens: 16,
    });
    expect(text).toBe('สวัสดี');
    expect(bodies[0]).toEqual({
      model: 'pool-small',
      messages: [{ role: 'user', content: 'Say hello in Thai' }],
      temperature: 0.2,
      max_tokens: 16,
    });
    expect(server.requests.every((request) => request.headers['x-api-key'] === KEY)).toBe(true);
    expect(server.requests.some((request) => 'authorization' in request.headers)).toBe(false);
  });

  it('refuses an invalid request before sending anything', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, {}));
    const { llm } = open(server.url);
    const attempt = llm.chat({ model: 'm', messages: [], temperature: 5 });
    await expect(attempt).rejects.toSatisfy(ValidationError.isInstance);
    await expect(attempt).rejects.toThrow(/messages|temperature/);
    expect(server.requests).toHaveLength(0);
  });

  it('does not repeat a completion after the connection broke, but does after an explicit 429', async () => {
    let calls = 0;
    server = await startServer(async (request, response) => {
      await readBody(request);
      calls += 1;
      if (calls === 1) {
        request.socket.destroy();
        return;
      }
      if (calls === 2) {
        sendJson(response, 429, { error: 'busy' }, { 'retry-after': '0' });
        return;
      }
      sendJson(response, 200, { choices: [{ message: { content: 'ok' } }] });
    });
    const { llm } = open(server.url);
    await expect(llm.complete('first', { model: 'm' })).rejects.toThrow(/may have acted/);
    expect(calls).toBe(1);
    expect(await llm.complete('second', { model: 'm' })).toBe('ok');
    expect(calls).toBe(3);
  });
});
