/**
 * One tool call as the demo makes it: progress forwarded to the reporter, the host-style request timeout
 * reset on progress, and the result reduced to a brief line.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Reporter } from './reporter.js';

export interface ToolOutcome {
  ok: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** Same ceiling as the common desktop hosts: a tool call that sends no progress for 60 s is cut off. */
const HOST_TIMEOUT_MS = 60_000;

export async function callTool(options: {
  server: string;
  client: Client;
  tool: string;
  arguments: Record<string, unknown>;
  reporter: Reporter;
  signal?: AbortSignal;
}): Promise<ToolOutcome> {
  const { reporter, tool } = options;
  reporter.emit({ type: 'call', server: options.server, tool, arguments: options.arguments });
  const started = performance.now();
  try {
    const result = await options.client.callTool(
      { name: tool, arguments: options.arguments },
      {
        timeout: HOST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        signal: options.signal,
        onprogress: (progress) =>
          reporter.emit({
            type: 'progress',
            tool,
            progress: progress.progress,
            total: progress.total,
            message: progress.message,
          }),
      },
    );
    const text = (Array.isArray(result.content) ? result.content : [])
      .filter((item): item is { type: 'text'; text: string } => item.type === 'text')
      .map((item) => item.text)
      .join('\n');
    const outcome: ToolOutcome = {
      ok: result.isError !== true,
      text,
      structured: isRecord(result.structuredContent) ? result.structuredContent : undefined,
    };
    reporter.emit({
      type: 'result',
      tool,
      ok: outcome.ok,
      seconds: (performance.now() - started) / 1000,
      brief: firstLine(text),
      structured: outcome.structured,
    });
    return outcome;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reporter.emit({
      type: 'result',
      tool,
      ok: false,
      seconds: (performance.now() - started) / 1000,
      brief: message,
    });
    return { ok: false, text: message, structured: undefined };
  }
}

/** Structured content may be any JSON value; the Polymodal tools answer objects. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
