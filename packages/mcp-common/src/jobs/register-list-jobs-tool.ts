/**
 * `list_jobs`: the jobs this installation started, read from the local job ledger. It lets an agent find
 * and resume work after a host restart or a cut-off call without paying again. Read-only and local: it does
 * not call the platform, so statuses are the last ones this installation saw.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JobLedger, LedgerEntry } from '@polymodal/core';
import { z } from 'zod';
import { toolError } from '../errors/tool-error.js';

export interface ListJobsToolOptions {
  ledger: JobLedger;
  /** Ledger services this server owns (e.g. `['meeting']`). */
  services: readonly string[];
  secrets: readonly string[];
  /** Tool name, default `list_jobs`. */
  name?: string;
  /** Tool that shows a job's live state, named in the description and hints (e.g. `get_meeting`). */
  getTool?: string;
  /** Noun for the jobs in texts, default "jobs". */
  noun?: string;
}

const jobEntrySchema = z.object({
  service: z.string(),
  jobId: z
    .string()
    .nullable()
    .describe('Null when the submission was interrupted before the job was created.'),
  status: z.string().describe('Last status this installation saw (not live).'),
  title: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  file: z.string().optional().describe('Local file the job was made from, when recorded.'),
});

export type ListedJob = z.infer<typeof jobEntrySchema>;

export function registerListJobsTool(server: McpServer, options: ListJobsToolOptions): void {
  const name = options.name ?? 'list_jobs';
  const noun = options.noun ?? 'jobs';
  const getHint = options.getTool ? ` Call ${options.getTool} with a jobId for the live state.` : '';
  server.registerTool(
    name,
    {
      title: `List ${noun} started here`,
      description:
        `Lists the ${noun} this installation submitted, newest first, from its local job ledger (free, instant, ` +
        `no platform call). Statuses are the last ones seen here, not live.${getHint} Use it to find a jobId after ` +
        'a restart or an interrupted call instead of submitting (and paying for) the same file again.',
      inputSchema: {
        limit: z.number().int().min(1).max(100).default(20).describe('How many entries to return (1..100).'),
      },
      outputSchema: {
        jobs: z.array(jobEntrySchema),
        count: z.number().int(),
      },
      annotations: {
        title: `List ${noun} started here`,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ limit }) => {
      try {
        const entries = await collectEntries(options, limit);
        const jobs = entries.map(toListedJob);
        const lines = jobs.map(
          (job) =>
            `- ${job.jobId ?? '(not created yet)'} ${job.status}${job.title ? ` "${job.title}"` : ''} (${job.createdAt})`,
        );
        const text =
          jobs.length === 0
            ? `No ${noun} recorded by this installation yet.`
            : `${jobs.length} ${noun} recorded by this installation (last seen status):\n${lines.join('\n')}`;
        return { content: [{ type: 'text', text }], structuredContent: { jobs, count: jobs.length } };
      } catch (error) {
        return toolError(error, { secrets: options.secrets });
      }
    },
  );
}

async function collectEntries(options: ListJobsToolOptions, limit: number): Promise<LedgerEntry[]> {
  const lists = await Promise.all(options.services.map((service) => options.ledger.list({ service, limit })));
  return lists
    .flat()
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
    .slice(0, limit);
}

function toListedJob(entry: LedgerEntry): ListedJob {
  const file = typeof entry.request?.file === 'string' ? entry.request.file : undefined;
  return {
    service: entry.service,
    jobId: entry.id,
    status: entry.lastStatus,
    title: entry.title ?? null,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    ...(file ? { file } : {}),
  };
}
