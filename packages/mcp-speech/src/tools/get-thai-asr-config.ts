/**
 * get_thai_asr_config: the streaming recogniser's defaults and this key's limits and usage, within one
 * tool-call deadline.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { createToolDeadline, defineTool, READ_ONLY_ANNOTATIONS, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';

const DESCRIPTION = `Shows the streaming Thai recogniser's language, engine, defaults and this key's limits (requests per minute, sessions, daily audio seconds used and left). Free.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getThaiAsrConfigInput = {};

const getThaiAsrConfigOutput = {
  language: z.string().nullable(),
  engine: z.string().nullable(),
  defaults: z.record(z.string(), z.unknown()).nullable(),
  limits: z.record(z.string(), z.unknown()).nullable(),
};

export const getThaiAsrConfigTool = defineTool({
  name: 'get_thai_asr_config',
  title: 'Thai recognition configuration',
  description: DESCRIPTION,
  inputSchema: getThaiAsrConfigInput,
  outputSchema: getThaiAsrConfigOutput,
  annotations: READ_ONLY_ANNOTATIONS,
  handler: (deps: ToolDeps) => {
    const seconds = deps.toolDeadlineSeconds;
    return async (_args, extra) => {
      const deadline = createToolDeadline(extra.signal, seconds);
      try {
        const config = await deps.platform.client.thaiAsr.config({
          signal: extra.signal,
          deadline: deadline.at,
        });
        const limits = (config.limits ?? null) as Record<string, unknown> | null;
        const used = limits?.today_audio_seconds_used;
        const daily = limits?.daily_audio_seconds;
        const text =
          `Thai recognition (${config.engine ?? 'engine?'}), ${String(config.defaults?.sample_rate ?? '?')} Hz. ` +
          (daily !== undefined ? `Audio today: ${String(used ?? 0)} of ${String(daily)} s. ` : '') +
          (limits?.concurrent_sessions !== undefined
            ? `Concurrent sessions: ${String(limits.concurrent_sessions)}.`
            : '');
        return {
          content: [{ type: 'text', text: text.trim() }],
          structuredContent: {
            language: config.language ?? null,
            engine: config.engine ?? null,
            defaults: (config.defaults ?? null) as Record<string, unknown> | null,
            limits,
          },
        };
      } catch (error) {
        return toolErrorFor(error, deps, { resource: 'the Thai speech recognition configuration' });
      } finally {
        deadline.dispose();
      }
    };
  },
});
