import type { ToolCallOutcome } from './create-metrics.js';

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
