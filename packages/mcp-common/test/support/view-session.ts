/**
 * What every view test does before and after the browser: connect to a built bin over stdio as a client
 * that renders MCP Apps views (or one that does not), read a view's `ui://` resource as a host would (one
 * content item, the extension's mime type, self-contained, within the size budget), and keep the screenshot
 * a person would see: always in `test-artifacts/views/`, and, with `UPDATE_VIEW_SCREENSHOTS=1`, in
 * `docs/images/views/` too, where the README and docs/hosts.md show it.
 */
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { ViewHost } from './view-host.js';
import type { McpUiResourceCsp } from './view-host-page.js';

export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
export const MAX_VIEW_BYTES = 1.5 * 1024 * 1024;

/** The capabilities of a client that renders views (what Claude, ChatGPT, VS Code declare). */
export const RENDERS_VIEWS = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } },
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
