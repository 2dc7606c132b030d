/**
 * The demo with another model: the built CLI on the embedded sandbox, reasoning with a fake
 * OpenAI-compatible endpoint on loopback (a node:http server that answers with a native tool call, then
 * with text). What the endpoint saw proves the model, the key and the tools went there; what the demo
 * printed proves the key did not.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, parseEvents, runDemo } from './run-demo.js';

const KEY = 'sk-fake-endpoint-key-5150';
let server: Server | undefined;
let outputDir: string | undefined;

beforeAll(assertBuilt);

afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  }
  server = undefined;
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
  outputDir = undefined;
});

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content?: string | null }[];
    tools?: { function: { name: string } }[];
  };
}

/** A fake endpoint: `reply(n, seen)` answers the n-th request (1-based). */
async function startEndpoint(reply: (count: number, seen: Seen) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: Seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        body: text ? (JSON.parse(text) as Seen['body']) : {},
      };
      seen.push(entry);
      const { status, body } = reply(seen.length, entry);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

describe('pnpm demo with an OpenAI-compatible endpoint', () => {
  it('sends the model, the key and the MCP tools there, runs the tool it asks for and prints its answer', async () => {
    const endpoint = await startEndpoint((count) =>
      count === 1
        ? {
            status: 200,
            body: {
              choices: [
                {
                  message: {
                    role: 'assistant',
                    content: 'Checking the catalog first.',
                    tool_calls: [
                      {
                        id: 'call_a',
                        type: 'function',
                        function: { name: 'list_video_models', arguments: '{}' },
                      },
                    ],
                  },
                },
              ],
            },
          }
        : {
            status: 200,
            body: {
              choices: [
                { message: { role: 'assistant', content: 'The catalog has a text-to-video model.' } },
              ],
            },
          },
    );
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-endpoint-'));
    const run = await runDemo(
      [
        '--json',
        '--llm-base-url',
        endpoint.url,
        '--llm-model',
        'fake-tools-1',
        'What video models are there?',
      ],
      {
        POLYMODAL_OUTPUT_DIR: outputDir,
        POLYMODAL_DEMO_LLM_API_KEY: KEY,
      },
    );
    expect(run.code, run.stderr).toBe(0);

    expect(endpoint.seen.map((entry) => `${entry.method} ${entry.url}`)).toEqual([
      'POST /v1/chat/completions',
      'POST /v1/chat/completions',
    ]);
    expect(endpoint.seen.every((entry) => entry.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(endpoint.seen.every((entry) => entry.body.model === 'fake-tools-1')).toBe(true);
    const offered = endpoint.seen[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(
      expect.arrayContaining(['summarize_meeting', 'generate_video', 'create_flashcards', 'transcribe_thai']),
    );
    const toolMessage = endpoint.seen[1]?.body.messages?.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('hub:text-to-video-lite');

    const events = parseEvents(run.stdout);
    expect(events.find((event) => event.type === 'model')).toMatchObject({
      model: 'fake-tools-1',
      source: 'endpoint',
      endpoint: endpoint.url,
    });
    expect(events.find((event) => event.type === 'message')).toMatchObject({
      text: 'Checking the catalog first.',
    });
    expect(events.filter((event) => event.type === 'call').map((event) => event.tool)).toEqual([
      'list_video_models',
    ]);
    expect(events.find((event) => event.type === 'answer')).toMatchObject({
      text: 'The catalog has a text-to-video model.',
    });
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  });

  it("masks the key when the endpoint's refusal repeats it, in the error event and on stderr", async () => {
    const endpoint = await startEndpoint(() => ({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${KEY}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    }));
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-endpoint-'));
    const run = await runDemo(
      [
        '--json',
        '--llm-base-url',
        endpoint.url,
        '--llm-model',
        'fake-tools-1',
        '--llm-api-key',
        KEY,
        'Say hello.',
      ],
      { POLYMODAL_OUTPUT_DIR: outputDir },
    );
    expect(run.code).toBe(1);
    expect(endpoint.seen[0]?.authorization).toBe(`Bearer ${KEY}`);
    const error = parseEvents(run.stdout).find((event) => event.type === 'error');
    expect(error?.message).toContain('Incorrect API key provided: ***');
    expect(run.stderr).toContain('Incorrect API key provided: ***');
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  });

  it('refuses plain http to a host that is not this machine before starting anything', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-endpoint-'));
    const run = await runDemo(['--llm-base-url', 'http://llm.example/v1', '--llm-model', 'm', 'Say hello.'], {
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_DEMO_LLM_API_KEY: KEY,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Refusing plain http to llm.example');
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain(KEY);
  });
});
