/**
 * The browser side of the test host (view-host.ts), bundled into the host page: mounts a view the way the
 * MCP Apps spec lays it out — the host page on one origin, a sandbox proxy iframe on another, the view in
 * the proxy's inner frame — and talks to it through ext-apps' own host bridge (`AppBridge`). The view's tool
 * calls and resource reads go to functions the Node side exposed (`hostCallTool`, `hostReadResource`), which
 * forward them to the server.
 */
/// <reference lib="dom" />
import type {
  CallToolRequest,
  CallToolResult,
  ReadResourceRequest,
  ReadResourceResult,
} from '@modelcontextprotocol/client';
import {
  AppBridge,
  type McpUiDownloadFileRequest,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

export type { McpUiHostContext, McpUiResourceCsp };

export interface MountRequest {
  sandboxUrl: string;
  html: string;
  csp?: McpUiResourceCsp;
  hostContext: McpUiHostContext;
  input: Record<string, unknown>;
  result: CallToolResult;
}

declare global {
  interface Window {
    hostCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    hostReadResource(params: ReadResourceRequest['params']): Promise<ReadResourceResult>;
    mountView(request: MountRequest): Promise<void>;
    /** What the bridge saw, in order (the test asserts the handshake came before the data). */
    bridgeEvents: string[];
    /**
     * When each mount began (`mount`) and each of `bridgeEvents` happened, in order, as absolute times
     * (`performance.timeOrigin + performance.now()`, ms), comparable with the view frame's own clock: the
     * views benchmark (bench/views.mjs) times a view's first render from these.
     */
    bridgeTimes: BridgeTime[];
    /** What the view asked the host to download (`ui/download-file`) or open (`ui/open-link`), in order. */
    hostRequests: HostRequest[];
  }
}

export interface BridgeTime {
  event: string;
  at: number;
}

export type HostRequest =
  | { method: 'ui/download-file'; params: McpUiDownloadFileRequest['params'] }
  | { method: 'ui/open-link'; params: { url: string } };

window.bridgeEvents = [];
window.bridgeTimes = [];
window.hostRequests = [];

const now = () => performance.timeOrigin + performance.now();

function record(event: string): void {
  window.bridgeEvents.push(event);
  window.bridgeTimes.push({ event, at: now() });
}

window.mountView = async (request: MountRequest) => {
  window.bridgeTimes.push({ event: 'mount', at: now() });
  const iframe = document.createElement('iframe');
  iframe.title = 'view';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'width: 640px; height: 360px; border: 1px solid #888;';
  iframe.src = request.sandboxUrl;
  document.body.append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'polymodal-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, downloadFile: {}, openLinks: {} },
    { hostContext: request.hostContext },
  );
  bridge.oncalltool = (params) => {
    record(`tools/call ${params.name}`);
    return window.hostCallTool(params);
  };
  bridge.onreadresource = (params) => {
    record(`resources/read ${params.uri}`);
    return window.hostReadResource(params);
  };
  // The test host records what a person would be asked to confirm, and confirms it.
  bridge.ondownloadfile = async (params) => {
    record('ui/download-file');
    window.hostRequests.push({ method: 'ui/download-file', params });
    return {};
  };
  bridge.onopenlink = async (params) => {
    record(`ui/open-link ${params.url}`);
    window.hostRequests.push({ method: 'ui/open-link', params });
    return {};
  };
  bridge.addEventListener('sizechange', ({ height }) => {
    if (height) iframe.style.height = `${height + 2}px`;
  });
  const initialized = new Promise<void>((resolve) => {
    bridge.addEventListener('initialized', () => {
      record('initialized');
      resolve();
    });
  });
  bridge.addEventListener('sandboxready', () => {
    record('sandbox-ready');
    void bridge.sendSandboxResourceReady({
      html: request.html,
      ...(request.csp ? { csp: request.csp } : {}),
    });
  });
  const contentWindow = iframe.contentWindow;
  if (!contentWindow) throw new Error('the sandbox iframe has no window');
  await bridge.connect(new PostMessageTransport(contentWindow, contentWindow));
  await initialized;
  // The spec's order: tool input, then the result, only after the view said it is initialized.
  await bridge.sendToolInput({ arguments: request.input });
  record('tool-input');
  await bridge.sendToolResult(request.result);
  record('tool-result');
};
