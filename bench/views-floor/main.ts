/**
 * The floor of the views benchmark (bench/views.mjs): the least an MCP Apps view can be with ext-apps, as the
 * Polymodal views are built (scripts/build-views.mjs) and under the same CSP. It connects through ext-apps'
 * `App` and writes the tool result's text items into the page; no theme, no reads through the host. As in
 * every view, the `App` itself keeps zod from compiling parsers with `new Function`, which the CSP forbids.
 */
import { App } from '@modelcontextprotocol/ext-apps';

const output = document.getElementById('result') as HTMLPreElement;
const app = new App({ name: 'Polymodal views floor', version: '1.0.0' });
app.addEventListener('toolresult', (result) => {
  output.textContent = result.content.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');
});
// An IIFE has no top-level await.
void app.connect();
