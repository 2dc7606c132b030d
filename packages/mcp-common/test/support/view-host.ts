/**
 * A test host for MCP Apps views in a real browser (headless Chromium through playwright-core), laid out as
 * the spec lays out a host: the host page on one loopback origin, a sandbox proxy page on another (served
 * with a CSP built from the view resource's `_meta.ui.csp`: no 'unsafe-eval', no network beyond the declared
 * origins), the view in the proxy's inner `srcdoc` frame, which inherits that CSP. The host page runs
 * ext-apps' own `AppBridge` (view-host-page.ts); the view's tool calls and resource reads are forwarded to
 * the MCP client the test gives. Every console error, ext-apps warning and uncaught error of any frame is
 * recorded.
 *
 * Chromium is Debian's (`/usr/bin/chromium`, or `CHROMIUM_PATH`): playwright's own download is not reachable
 * here. `.ci/run` installs it.
 */
/// <reference lib="dom" />
import { access } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import type { BridgeTime, HostRequest, McpUiHostContext, McpUiResourceCsp } from './view-host-page.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ViewHost {
  page: Page;
  /** Console errors, ext-apps' warnings of misuse and uncaught errors of every frame, in order. */
  errors: string[];
  /** Mounts a view, waits for its handshake, sends it the tool's input and result; returns the view's frame. */
  mount(request: MountOptions): Promise<Frame>;
  /** What the host page's bridge saw, in order. */
  bridgeEvents(): Promise<string[]>;
  /** When each mount began and each bridge event happened (absolute ms, comparable across frames). */
  bridgeTimes(): Promise<BridgeTime[]>;
  /** What the view asked the host to download or open, in order. */
  hostRequests(): Promise<HostRequest[]>;
  close(): Promise<void>;
}

export interface MountOptions {
  html: string;
  csp?: McpUiResourceCsp | undefined;
  hostContext: McpUiHostContext;
  input: Record<string, unknown>;
  result: CallToolResult;
  /** Bounds the whole mount (browser work on a busy machine: seconds, not milliseconds). */
  timeoutMs?: number;
}

/**
 * ext-apps' warnings of a view's misuse of its `App` (a host method called before the handshake, a handler
 * for a one-time notification registered after it, a handler replaced, a deprecated 1.x form): they say the
 * view may miss its data in a stricter host, so they count as errors.
 */
function isExtAppsWarning(type: string, text: string): boolean {
  return type === 'warning' && /^\[(?:ext-apps|MCP Apps)\]/.test(text);
}

/** A CSP source list entry as the spec allows it: an origin, no quotes, separators or keywords smuggled in. */
function sanitizedOrigins(domains: readonly string[] | undefined): string[] {
  return (domains ?? []).filter((domain) => /^https?:\/\/[^\s;,'"]+$/.test(domain));
}

/** The sandbox's CSP from a view's declared origins: inline script and style only, media from data: URLs. */
export function viewCsp(csp: McpUiResourceCsp | undefined): string {
  const resources = sanitizedOrigins(csp?.resourceDomains).join(' ');
  const connect = sanitizedOrigins(csp?.connectDomains).join(' ') || "'none'";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `media-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `connect-src ${connect}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The proxy page: relays JSON-RPC between the host and the inner frame, and loads the view on request. */
const SANDBOX_PROXY = `<!doctype html>
<html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style></head>
<body><script>
const host = new URL(location.href).searchParams.get('host');
const inner = document.createElement('iframe');
inner.title = 'view';
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin');
document.body.append(inner);
window.addEventListener('message', (event) => {
  if (event.source === window.parent) {
    if (event.origin !== host) return;
    if (event.data && event.data.method === 'ui/notifications/sandbox-resource-ready') {
      inner.srcdoc = event.data.params.html;
      return;
    }
    if (inner.contentWindow) inner.contentWindow.postMessage(event.data, '*');
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, host);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, host);
</script></body></html>`;

async function bundleHostPage(): Promise<string> {
  // esbuild as tsup resolves it (the same one the views are built with).
  const require = createRequire(createRequire(import.meta.url).resolve('tsup'));
  const esbuild = require('esbuild') as {
    build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
  };
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./view-host-page.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'error',
  });
  return built.outputFiles[0]?.text ?? '';
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

export async function startViewHost(client: Client): Promise<ViewHost> {
  await access(CHROMIUM_PATH).catch(() => {
    throw new Error(
      `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  });
  const script = await bundleHostPage();
  let csp = viewCsp(undefined);
  // Two origins (two loopback ports): the host page's and the sandbox proxy's.
  const hostServer = createServer((request, response) => {
    if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body><script>${script}</script></body></html>`,
      );
      return;
    }
    response.writeHead(204).end();
  });
  const sandboxServer = createServer((request, response) => {
    if (request.url?.startsWith('/sandbox.html')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
      response.end(SANDBOX_PROXY);
      return;
    }
    response.writeHead(404).end();
  });
  const [hostOrigin, sandboxOrigin] = await Promise.all([listen(hostServer), listen(sandboxServer)]);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Chromium refuses its own sandbox as root (CI runs as root).
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
      timeout: 60_000,
    });
    const page = await browser.newPage({ viewport: { width: 680, height: 420 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || isExtAppsWarning(message.type(), message.text()))
        errors.push(`${message.location().url || 'view'}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    await page.exposeFunction('hostCallTool', (params: Parameters<Client['callTool']>[0]) =>
      client.callTool(params),
    );
    await page.exposeFunction('hostReadResource', (params: Parameters<Client['readResource']>[0]) =>
      client.readResource(params),
    );
    await page.goto(`${hostOrigin}/`);
    const opened = browser;
    return {
      page,
      errors,
      async mount(options) {
        csp = viewCsp(options.csp);
        const sandboxUrl = `${sandboxOrigin}/sandbox.html?host=${encodeURIComponent(hostOrigin)}`;
        const { timeoutMs = 30_000, ...request } = options;
        await Promise.race([
          // As JSON: the request's types are too deep for playwright's serializable-argument type.
          page.evaluate(
            (mount) => window.mountView(JSON.parse(mount)),
            JSON.stringify({ ...request, sandboxUrl }),
          ),
          new Promise((_, reject) =>
            setTimeout(
              () => reject(new Error(`the view was not mounted within ${timeoutMs} ms`)),
              timeoutMs,
            ).unref(),
          ),
        ]);
        const view = page.frames().find((frame) => frame.parentFrame()?.parentFrame() === page.mainFrame());
        if (!view) throw new Error('the view frame is missing');
        return view;
      },
      bridgeEvents: () => page.evaluate(() => window.bridgeEvents),
      bridgeTimes: () => page.evaluate(() => window.bridgeTimes),
      hostRequests: () => page.evaluate(() => window.hostRequests),
      async close() {
        await opened.close();
        hostServer.close();
        sandboxServer.close();
      },
    };
  } catch (error) {
    await browser?.close();
    hostServer.close();
    sandboxServer.close();
    throw error;
  }
}
