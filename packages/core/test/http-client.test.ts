/**
 * The HTTP chokepoint against a real loopback server: error mapping, response validation, the retry
 * policy (what may and may not be repeated), timeouts, aborts and key hygiene.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpClient, type HttpClient, type HttpClientOptions } from '../src/http.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServiceUnavailableError,
  TimeoutError,
} from '../src/index.js';
import { readBody, sendJson, startServer, type TestServer, unusedPort } from './support/start-server.js';

const KEY = 'pk_live_SECRETSECRET123';
const Id = z.looseObject({ id: z.string() });

let server: TestServer | undefined;
let client: HttpClient | undefined;
const sleeps: number[] = [];

function makeClient(baseUrl: string, overrides: Partial<HttpClientOptions> = {}): HttpClient {
  client = createHttpClient({
    baseUrl,
    apiKey: KEY,
    auth: 'bearer',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return client;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
  sleeps.length = 0;
});

describe('createHttpClient', () => {
  it('sends the key as a Bearer header (or x-api-key) and parses a valid body', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, { id: 'j1', extra: true }));
    const http = makeClient(server.url);
    const result = await http.request({
      method: 'POST',
      path: '/api/jobs',
      query: { a: 1, b: undefined },
      json: { x: 1 },
      schema: Id,
      idempotent: false,
    });
    expect(result.status).toBe(200);
    expect(result.data).toEqual({ id: 'j1', extra: true });
    expect(result.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.url).toBe('/api/jobs?a=1');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');

    const other = createHttpClient({ baseUrl: server.url, apiKey: KEY, auth: 'x-api-key' });
    await other.request({ method: 'GET', path: '/x', schema: Id, idempotent: true });
    await other.close();
    expect(server.requests[1]?.headers['x-api-key']).toBe(KEY);
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, InsufficientCreditsError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [500, InternalServerError],
    [503, ServiceUnavailableError],
  ])('maps HTTP %i to its error class with the server message and no key', async (status, ErrorClass) => {
    server = await startServer((_request, response) =>
      sendJson(response, status, { error: `server says no (${status})` }),
    );
    const http = makeClient(server.url, { maxRetries: 0 });
    const error = await failure(
      http.request({ method: 'GET', path: '/jobs/x', schema: Id, idempotent: true }),
    );
    expect(error).toBeInstanceOf(ErrorClass);
    const apiError = error as ApiError;
    expect(ApiError.isInstance(apiError)).toBe(true);
    expect(apiError.status).toBe(status);
    expect(apiError.serverMessage).toBe(`server says no (${status})`);
    expect(apiError.message).toContain(`server says no (${status})`);
    expect(apiError.url).toBe('/jobs/x');
    expect(apiError.body).toEqual({ error: `server says no (${status})` });
    expect(apiError.message).not.toContain(KEY);
  });

  it('redacts the key even when the server echoes it back', async () => {
    server = await startServer((request, response) =>
      sendJson(response, 401, { error: `invalid key ${request.headers.authorization}` }),
    );
    const http = makeClient(server.url);
    const error = (await failure(
      http.request({ method: 'GET', path: '/jobs', schema: Id, idempotent: true }),
    )) as ApiError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(
      JSON.stringify({ message: error.message, server: error.serverMessage, stack: error.stack }),
    ).not.toContain(KEY);
    expect(error.serverMessage).toContain('***');
  });

  it('reports a 2xx body that does not match the schema, without retrying it', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, { identifier: 42 }));
    const http = makeClient(server.url);
    const error = (await failure(
      http.request({ method: 'GET', path: '/jobs/1', schema: Id, idempotent: true }),
    )) as ResponseValidationError;
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('id');
    expect(server.requests).toHaveLength(1);
  });

  it('treats a truncated 2xx body as retryable for idempotent requests', async () => {
    let calls = 0;
    server = await startServer((_request, response) => {
      calls += 1;
      if (calls === 1) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"id": "tr');
        setTimeout(() => response.socket?.destroy(), 10);
        return;
      }
      sendJson(response, 200, { id: 'whole' });
    });
    const http = makeClient(server.url);
    const retries: unknown[] = [];
    const result = await http.request({
      method: 'GET',
      path: '/jobs/1',
      schema: Id,
      idempotent: true,
      onRetry: (info) => retries.push(info.error),
    });
    expect(result.data.id).toBe('whole');
    expect(retries).toHaveLength(1);
    expect(ResponseValidationError.isInstance(retries[0])).toBe(true);
  });

  it('reports invalid JSON on a non-idempotent 2xx without repeating the request', async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"id": "half');
    });
    const http = makeClient(server.url);
    const error = (await failure(
      http.request({ method: 'POST', path: '/jobs', json: {}, schema: Id, idempotent: false }),
    )) as ResponseValidationError;
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('does not repeat a POST whose connection was reset after the server received it', async () => {
    server = await startServer(async (request) => {
      await readBody(request);
      request.socket.destroy();
    });
    const http = makeClient(server.url);
    const error = (await failure(
      http.request({ method: 'POST', path: '/jobs', json: { a: 1 }, schema: Id, idempotent: false }),
    )) as ConnectionError;
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error.requestMayHaveArrived).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(error.message).not.toContain(KEY);
  });

  it('repeats a GET whose connection was reset, and succeeds', async () => {
    server = await startServer((request, response) => {
      if (server && server.requests.length < 3) {
        request.socket.destroy();
        return;
      }
      sendJson(response, 200, { id: 'ok' });
    });
    const http = makeClient(server.url);
    const result = await http.request({ method: 'GET', path: '/jobs/1', schema: Id, idempotent: true });
    expect(result.data.id).toBe('ok');
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('repeats even a non-idempotent POST when the connection was refused, then gives up with the last error', async () => {
    const port = await unusedPort();
    const http = makeClient(`http://127.0.0.1:${port}`, { maxRetries: 3 });
    const error = (await failure(
      http.request({ method: 'POST', path: '/jobs', json: {}, schema: Id, idempotent: false }),
    )) as ConnectionError;
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error.requestMayHaveArrived).toBe(false);
    expect(error.code).toBe('ECONNREFUSED');
    expect(sleeps).toHaveLength(3);
  });

  it('honours Retry-After on a 429, even for a non-idempotent POST', async () => {
    server = await startServer((_request, response) => {
      if (server && server.requests.length === 1) {
        sendJson(response, 429, { error: 'slow down' }, { 'retry-after': '7' });
        return;
      }
      sendJson(response, 201, { id: 'created' });
    });
    const http = makeClient(server.url, { baseDelayMs: 100, maxDelayMs: 1000 });
    const result = await http.request({
      method: 'POST',
      path: '/jobs',
      json: {},
      schema: Id,
      idempotent: false,
    });
    expect(result.status).toBe(201);
    expect(sleeps).toEqual([7000]);
  });

  it('gives a 429 with its retryAfterMs when retries are exhausted', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 429, { error: 'quota' }, { 'retry-after': '2' }),
    );
    const http = makeClient(server.url, { maxRetries: 2 });
    const error = (await failure(
      http.request({ method: 'GET', path: '/jobs', schema: Id, idempotent: true }),
    )) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(2000);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([2000, 2000]);
  });

  it('retries 5xx only for idempotent requests, and never 501', async () => {
    server = await startServer((request, response) =>
      sendJson(response, request.url === '/501' ? 501 : 500, { error: 'boom' }),
    );
    const http = makeClient(server.url, { maxRetries: 2 });
    await failure(http.request({ method: 'POST', path: '/500', json: {}, schema: Id, idempotent: false }));
    expect(server.requests).toHaveLength(1);
    await failure(http.request({ method: 'GET', path: '/500', schema: Id, idempotent: true }));
    expect(server.requests).toHaveLength(4);
    await failure(http.request({ method: 'GET', path: '/501', schema: Id, idempotent: true }));
    expect(server.requests).toHaveLength(5);
  });

  it('does not follow redirects (the key must not travel to another origin)', async () => {
    const elsewhere = await startServer((_request, response) => sendJson(response, 200, { id: 'stolen' }));
    try {
      server = await startServer((_request, response) => {
        response.writeHead(302, { location: `${elsewhere.url}/steal` });
        response.end();
      });
      const http = makeClient(server.url);
      const error = (await failure(
        http.request({ method: 'GET', path: '/jobs', schema: Id, idempotent: true }),
      )) as ApiError;
      expect(ApiError.isInstance(error)).toBe(true);
      expect(error.status).toBe(302);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('turns its own per-request timeout into a TimeoutError', async () => {
    server = await startServer(() => {
      // never answers
    });
    const http = makeClient(server.url, { timeoutMs: 150, maxRetries: 0 });
    const error = await failure(http.request({ method: 'GET', path: '/slow', schema: Id, idempotent: true }));
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(150);
  });

  it('rethrows the caller abort reason as-is and never retries it', async () => {
    server = await startServer(() => {
      // never answers
    });
    const http = makeClient(server.url);
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => controller.abort(reason), 50);
    const error = await failure(
      http.request({ method: 'GET', path: '/slow', schema: Id, idempotent: true, signal: controller.signal }),
    );
    expect(error).toBe(reason);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toHaveLength(0);
  });

  it('leaves no listener on a long-lived caller signal after its requests', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, { id: 'x' }));
    const http = makeClient(server.url);
    const controller = new AbortController();
    for (let index = 0; index < 5; index++) {
      await http.request({
        method: 'GET',
        path: '/x',
        schema: Id,
        idempotent: true,
        signal: controller.signal,
      });
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once, without a request, when the signal is already aborted', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, { id: 'x' }));
    const http = makeClient(server.url);
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      http.request({ method: 'GET', path: '/x', schema: Id, idempotent: true, signal: controller.signal }),
    );
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the call deadline', () => {
  it('a Retry-After longer than the time left ends the call with the 429, without waiting', async () => {
    server = await startServer((_request, response) => {
      response.setHeader('retry-after', '20');
      sendJson(response, 429, { error: 'slow down' });
    });
    const http = makeClient(server.url);
    const error = await failure(
      http.request({
        method: 'GET',
        path: '/jobs/1',
        schema: Id,
        idempotent: true,
        deadline: Date.now() + 2_000,
      }),
    );
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a Retry-After within the time left is waited out and retried', async () => {
    let calls = 0;
    server = await startServer((_request, response) => {
      calls += 1;
      if (calls === 1) {
        response.setHeader('retry-after', '1');
        sendJson(response, 429, { error: 'slow down' });
      } else sendJson(response, 200, { id: 'j1' });
    });
    const http = makeClient(server.url);
    const result = await http.request({
      method: 'GET',
      path: '/jobs/1',
      schema: Id,
      idempotent: true,
      deadline: Date.now() + 30_000,
    });
    expect(result.data.id).toBe('j1');
    expect(sleeps).toEqual([1_000]);
  });

  it('an answer that never comes is cut at the deadline, not at the attempt timeout', async () => {
    server = await startServer(() => {
      // Never answers.
    });
    const http = makeClient(server.url, { timeoutMs: 60_000 });
    const startedAt = Date.now();
    const error = await failure(
      http.request({
        method: 'GET',
        path: '/jobs/1',
        schema: Id,
        idempotent: true,
        deadline: Date.now() + 300,
      }),
    );
    expect(TimeoutError.isInstance(error) && error.deadlineReached).toBe(true);
    // Bounded by the deadline, far below the 60 s attempt timeout (and no retry after the deadline).
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(server.requests).toHaveLength(1);
  });

  it('maxRetries per call overrides the client default', async () => {
    server = await startServer((_request, response) => sendJson(response, 503, { error: 'down' }));
    const http = makeClient(server.url, { maxRetries: 4 });
    const error = await failure(
      http.request({ method: 'GET', path: '/jobs/1', schema: Id, idempotent: true, maxRetries: 0 }),
    );
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});
