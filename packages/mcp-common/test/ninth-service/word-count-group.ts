/**
 * The toy word-count service's tool group: its two tools and its `list_jobs`, as a server's
 * `src/tools/index.ts` lists them. A real server's group passes no `deps` (its client is
 * `deps.platform.client.<service>`, built by `createPolymodal`); the toy, which is no platform service, builds
 * its client here on the shared job engine instead, once per platform context.
 */
import type { HttpClient } from '@polymodal/core/http';
import { listJobsTool, perContext, toolGroup } from '@polymodal/mcp-common';
import { createWordCountClient } from './word-count-client.js';
import { GET_WORD_COUNT_TOOL, WORD_COUNT_SERVICE } from './word-count-job.js';
import { countWordsTool, getWordCountTool, type WordCountToolDeps } from './word-count-tools.js';

// #region group
export function wordCountTools(options: { http: HttpClient; intervalMs: number }) {
  // Per context, not per server: over HTTP every request builds a server on its tenant's context.
  const clientOf = perContext((context) =>
    // The platform client is loaded before a handler is first built, so its engine is there.
    createWordCountClient({
      http: options.http,
      engine: context.client.engine,
      intervalMs: options.intervalMs,
    }),
  );
  return toolGroup<WordCountToolDeps>({
    tools: [
      countWordsTool,
      getWordCountTool,
      // A platform service's server writes `listJobsTool(jobsServedBy(['<server>']))`: the table's rows.
      listJobsTool({ services: [WORD_COUNT_SERVICE], getTool: GET_WORD_COUNT_TOOL }),
    ],
    deps: (common) => ({ ...common, wordCount: clientOf(common.platform) }),
  });
}
// #endregion
