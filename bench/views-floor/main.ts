/**
 * The floor of the views benchmark (bench/views.mjs): the least an MCP Apps view can be with ext-apps, as the
 * Polymodal views are built (scripts/build-views.mjs) and under the same CSP. It connects through ext-apps'
 * `App` and writes the tool result's text items into the page; no theme, no reads through the host.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { config } from 'zod/v4/core';

// As in every view: zod compiles its parsers with `new Function` unless told not to, and the CSP forbids eval.
config({ jitless: true });

const output = document.getElementById('result') as HTMLPreElement;
const app = new App({ name: 'Polymodal views floor', version: '1.0.0' });
app.ontoolresult = (result) => {
  output.textContent = (result as CallToolResult).content
    .flatMap((item) => (item.type === 'text' ? [item.text] : []))
    .join('\n');
};
// An IIFE has no top-level await.
void app.connect();
