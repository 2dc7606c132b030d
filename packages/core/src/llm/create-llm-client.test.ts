/**
 * The LLM client on another OpenAI-compatible endpoint: its routes below the endpoint's own base URL, the
 * endpoint's bearer key on the wire, and that key masked in what the endpoint's error body says.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { createLlmClient } from './create-llm-client.js';

const KEY = 'sk-endpoint-secret-7781';
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  apiKeyHeader: string | undefined;
  body: string;
}

async function startEndpoint(
  answer: (seen: Seen) => { status: number; body: unknown },
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        apiKeyHeader: request.headers['x-api-key'] as string | undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      const { status, body } = answer(entry);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

function endpointClient(url: string): HttpClient {
  const http = createHttpClient({ baseUrl: url, apiKey: KEY, auth: 'bearer', maxRetries: 0 });
  closers.push(() => http.close());
  return http;
}

describe('createLlmClient with apiPath', () => {
  it('sends /models and /chat/completions below the endpoint base URL with its bearer key', async () => {
    const endpoint = await startEndpoint((seen) =>
      seen.url.endsWith('/models')
        ? { status: 200, body: { object: 'list', data: [{ id: 'local-7b' }] } }
        : {
            status: 200,
            body: { choices: [{ message: { role: 'assistant', content: 'hello from local-7b' } }] },
          },
    );
    const llm = createLlmClient({ http: endpointClient(endpoint.url), apiKey: KEY, apiPath: '' });

    const models = await llm.models();
    const text = await llm.complete('Say hello', { model: 'local-7b' });

    expect(models.data.map((model) => model.id)).toEqual(['local-7b']);
    expect(text).toBe('hello from local-7b');
    expect(endpoint.seen.map((entry) => `${entry.method} ${entry.url}`)).toEqual([
      'GET /v1/models',
      'POST /v1/chat/completions',
    ]);
    expect(endpoint.seen.every((entry) => entry.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(endpoint.seen.some((entry) => entry.apiKeyHeader !== undefined)).toBe(false);
    expect(JSON.parse(endpoint.seen[1]?.body ?? '{}')).toMatchObject({ model: 'local-7b' });
  });

  it('keeps the platform path by default', async () => {
    const endpoint = await startEndpoint(() => ({ status: 200, body: { data: [] } }));
    const llm = createLlmClient({ http: endpointClient(endpoint.url), apiKey: KEY });
    await llm.models();
    expect(endpoint.seen[0]?.url).toBe('/v1/api/llm/v1/models');
  });

  it("masks the endpoint's key when its error body repeats it", async () => {
    const endpoint = await startEndpoint(() => ({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    }));
    const llm = createLlmClient({ http: endpointClient(endpoint.url), apiKey: KEY, apiPath: '/' });
    const failure = await llm.complete('Say hello', { model: 'local-7b' }).catch((error: unknown) => error);

    expect(ApiError.isInstance(failure) && failure.status).toBe(401);
    const message = (failure as Error).message;
    expect(message).toContain('Incorrect API key provided: ***');
    expect(message).not.toContain(KEY);
    expect(endpoint.seen[0]?.url).toBe('/v1/chat/completions');
  });
});
