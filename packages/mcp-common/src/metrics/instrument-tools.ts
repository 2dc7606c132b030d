/**
 * Counts and times every tool call of a server, once for every server: the McpServer's `registerTool` is
 * wrapped before the server's tools are registered, so each handler is measured without any tool file
 * knowing. Only the tool's name (fixed by the server) labels the metrics, never its arguments.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolCallOutcome } from './create-metrics.js';
import type { MetricsSink } from './process-metrics-sink.js';

type LooseHandler = (...args: unknown[]) => unknown;
type LooseRegister = (name: string, config: unknown, ...rest: unknown[]) => unknown;

/** Call on a new McpServer before its tools are registered (a combined server's mounts register on it too). */
export function instrumentTools(server: McpServer, metrics: Pick<MetricsSink, 'toolCall'>): void {
  const original = server.registerTool as unknown as LooseRegister;
  const instrumented: LooseRegister = (name, config, ...rest) => {
    const last = rest.length - 1;
    const handler = rest[last];
    if (typeof handler === 'function') rest[last] = measure(name, handler as LooseHandler, metrics);
    return original.call(server, name, config, ...rest);
  };
  server.registerTool = instrumented as unknown as McpServer['registerTool'];
}

function measure(tool: string, handler: LooseHandler, metrics: Pick<MetricsSink, 'toolCall'>): LooseHandler {
  return async (...args) => {
    const started = performance.now();
    let outcome: ToolCallOutcome = 'error';
    try {
      const result = await handler(...args);
      outcome = toolCallOutcome(result);
      return result;
    } finally {
      metrics.toolCall(tool, outcome, (performance.now() - started) / 1000);
    }
  };
}

/**
 * How a result reads to a user: an error; a handle to come back with (`done: false`); a job that ended
 * failed or cancelled (not a tool error, see respondWithJob); or done.
 */
export function toolCallOutcome(result: unknown): ToolCallOutcome {
  if (typeof result !== 'object' || result === null) return 'ok';
  const { isError, structuredContent } = result as {
    isError?: unknown;
    structuredContent?: { done?: unknown; outcome?: unknown };
  };
  if (isError === true) return 'error';
  if (structuredContent?.done === false) return 'pending';
  if (structuredContent?.outcome === 'failed') return 'failed';
  if (structuredContent?.outcome === 'cancelled') return 'cancelled';
  return 'ok';
}
