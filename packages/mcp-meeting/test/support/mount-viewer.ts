/**
 * The meeting viewer mounted in a test host for a `summarize_meeting` result of `SHORT_SCRIPT`: the step the
 * viewer tests share, with what every mount must show (each segment of the script, its three speakers).
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { ViewHost } from '@polymodal/mcp-common/testing/views';
import { listedTool, type ViewResource } from '@polymodal/mcp-common/testing/views';
import type { Frame } from 'playwright-core';
import { expect } from 'vitest';
import { SHORT_SCRIPT } from './harness.js';

export async function mountViewerOnScript(
  host: ViewHost,
  client: Client,
  options: {
    view: ViewResource;
    theme: 'light' | 'dark';
    input: Record<string, unknown>;
    result: CallToolResult;
  },
): Promise<Frame> {
  const frame = await host.mount({
    html: options.view.html,
    csp: options.view.csp,
    hostContext: { theme: options.theme, toolInfo: { tool: await listedTool(client, 'summarize_meeting') } },
    input: options.input,
    result: options.result,
    timeoutMs: 60_000,
  });
  await frame.waitForSelector('#segments li', { timeout: 60_000 });
  const texts = await frame.$$eval('#segments li .text', (nodes) => nodes.map((node) => node.textContent));
  expect(texts).toEqual(SHORT_SCRIPT.map((line) => line.text));
  expect(await frame.$$eval('#speakers .name', (nodes) => nodes.length)).toBe(3);
  return frame;
}
