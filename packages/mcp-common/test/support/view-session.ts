/**
 * What every view test does before and after the browser: connect to a built bin over stdio as a client
 * that renders MCP Apps views (or one that does not), read a view's `ui://` resource as a host would (one
 * content item, the extension's mime type, self-contained, within the size budget), and keep the screenshot
 * a person would see: always in `test-artifacts/views/`, and, with `UPDATE_VIEW_SCREENSHOTS=1`, in
 * `docs/images/views/` too, where the README and docs/hosts.md show it.
 */
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  type Tool,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import type { Frame } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../src/server/sdk-server.js';
import { serverEnv } from './server-harness.js';
import { startViewHost, type ViewHost } from './view-host.js';
import type { McpUiResourceCsp } from './view-host-page.js';

export const MAX_VIEW_BYTES = 1.5 * 1024 * 1024;

/** The capabilities of a client that renders views (what Claude, ChatGPT, VS Code declare). */
export const RENDERS_VIEWS = {
  extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
} as ClientCapabilities;

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Connects to a built bin over stdio; a missing bin says how to build it. */
export async function connectBin(options: {
  bin: string;
  env: Record<string, string>;
  capabilities: ClientCapabilities;
}): Promise<Client> {
  await access(options.bin).catch(() => {
    throw new Error(`${options.bin} is missing: build first (pnpm build).`);
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.bin],
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'view-host', version: '1.0.0' }, { capabilities: options.capabilities });
  await client.connect(transport);
  return client;
}

export interface ViewResource {
  html: string;
  csp: McpUiResourceCsp | undefined;
}

/** Reads a view as a host does, checking what the extension requires of it. */
export async function readView(client: Client, uri: string): Promise<ViewResource> {
  const read = await client.readResource({ uri });
  expect(read.contents).toHaveLength(1);
  const [view] = read.contents;
  expect(view?.uri).toBe(uri);
  expect(view?.mimeType).toBe(VIEW_MIME_TYPE);
  const html = view && 'text' in view ? view.text : '';
  expect(Buffer.byteLength(html)).toBeLessThanOrEqual(MAX_VIEW_BYTES);
  // Self-contained: no script, style or link loaded from anywhere.
  expect(html).not.toMatch(/<script[^>]+src=|<link\b/i);
  return { html, csp: (view?._meta as { ui?: { csp?: McpUiResourceCsp } } | undefined)?.ui?.csp };
}

/** The tool a view is mounted for, as the client listed it (the host context's `toolInfo.tool`). */
export async function listedTool(client: Client, name: string): Promise<Tool> {
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  return tool;
}

/** Writes the mounted view (its frame, at the height it asked for) to test-artifacts/views/<name>.png, and to
 * docs/images/views/ on request. */
export async function saveScreenshot(host: ViewHost, name: string): Promise<void> {
  const folders = [path.join(REPO, 'test-artifacts', 'views')];
  if (process.env.UPDATE_VIEW_SCREENSHOTS === '1') folders.push(path.join(REPO, 'docs', 'images', 'views'));
  for (const folder of folders) {
    await mkdir(folder, { recursive: true });
    await host.page
      .locator('iframe')
      .first()
      .screenshot({ path: path.join(folder, `${name}.png`) });
  }
}

export interface ViewSession {
  readonly sandbox: Sandbox;
  readonly client: Client;
  /** The host of the test under way (after `mount`). */
  readonly host: ViewHost;
  /** Calls a tool as the agent would; an error result fails the test. */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Mounts the view for `tool`'s call in a new host (closed after the test); resolves the view's frame. */
  mount(tool: string, input: Record<string, unknown>, result: CallToolResult): Promise<Frame>;
}

/**
 * Declares, in the calling `describe`, the session a view test needs: a sandbox (speed 100), a scratch
 * directory, the built bin connected as a client that renders views, and the view read once; after each
 * test its host is closed and the sandbox clock released, after all the rest is closed and removed.
 */
export function useViewSession(options: {
  bin: string;
  viewUri: string;
  /** Prefix of the scratch directory's name in the system's temp directory. */
  scratch: string;
  theme: 'light' | 'dark';
}): ViewSession {
  let sandbox: Sandbox | undefined;
  let root: string | undefined;
  let client: Client | undefined;
  let view: ViewResource | undefined;
  let host: ViewHost | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the view session has no ${what} yet`);
    return value;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), options.scratch));
    client = await connectBin({
      bin: options.bin,
      env: serverEnv(root, sandbox),
      capabilities: RENDERS_VIEWS,
    });
    view = await readView(client, options.viewUri);
  }, 30_000);

  afterEach(async () => {
    await host?.close();
    host = undefined;
    sandbox?.control.releaseClock();
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true, maxRetries: 10 });
  });

  return {
    get sandbox() {
      return ready(sandbox, 'sandbox');
    },
    get client() {
      return ready(client, 'client');
    },
    get host() {
      return ready(host, 'host');
    },
    async call(name, args) {
      const result = await ready(client, 'client').callTool({ name, arguments: args }, { timeout: 40_000 });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result;
    },
    async mount(tool, input, result) {
      const connected = ready(client, 'client');
      const { html, csp } = ready(view, 'view');
      host = await startViewHost(connected);
      return host.mount({
        html,
        csp,
        hostContext: { theme: options.theme, toolInfo: { tool: await listedTool(connected, tool) } },
        input,
        result,
        timeoutMs: 30_000,
      });
    },
  };
}
