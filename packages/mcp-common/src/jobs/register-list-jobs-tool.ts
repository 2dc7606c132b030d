/**
 * `list_jobs`: the jobs this installation started, read from the local job ledger. It lets an agent find
 * and resume work after a host restart or a cut-off call without paying again. Read-only and local: it does
 * not call the platform, so statuses are the last ones this installation saw. It also shows the credits
 * of today (UTC) from the same ledger: charged, reserved by jobs not charged yet, and with a daily budget
 * what is left of it — per tenant, since each tenant has a ledger of its own.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JobLedger, LedgerEntry } from '@polymodal/core';
import { z } from 'zod';
import { type CreditBudget, type CreditsToday, creditBudgetOf } from '../budget/create-credit-budget.js';
import { entryCredits } from '../budget/entry-credits.js';
import { utcDay } from '../budget/utc-day.js';
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
  /** The daily credit budget to show; default the one created on `ledger` (the context's). */
  budget?: CreditBudget;
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
  credits: z
    .number()
    .optional()
    .describe(
      'Credits charged (as the platform reported) or, until then, reserved for it; absent when none are known.',
    ),
});

const creditsTodaySchema = z
  .object({
    day: z.string().describe('The UTC day counted (YYYY-MM-DD); budgets start again at 00:00 UTC.'),
    spent: z.number().describe('Credits the platform reported as charged for jobs submitted today.'),
    reserved: z.number().describe("Credits reserved by today's jobs not charged yet (running or unknown)."),
    creditsPerDay: z.number().optional().describe('The daily credit budget, when one is set.'),
    remaining: z.number().optional().describe('What is left of the budget today, when one is set.'),
  })
  .describe(
    'Credits of today, for every job of this tenant (not only those listed). Only meeting summaries publish a price; other services count 0.',
  );

export type ListedJob = z.infer<typeof jobEntrySchema>;

// Built once per process, whatever the tool's name and texts: every McpServer (one per HTTP request or
// session) registers these same objects, and the shared tools/list answer is keyed on their identity.
const listJobsInput = {
  limit: z.number().int().min(1).max(100).default(20).describe('How many entries to return (1..100).'),
};

const listJobsOutput = {
  jobs: z.array(jobEntrySchema),
  count: z.number().int(),
  credits: creditsTodaySchema,
};

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
        'a restart or an interrupted call instead of submitting (and paying for) the same file again. Also shows ' +
        "today's credits (UTC day): charged, reserved by jobs not charged yet, and the daily budget and what is left of it.",
      inputSchema: listJobsInput,
      outputSchema: listJobsOutput,
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
        const budget = options.budget ?? creditBudgetOf(options.ledger);
        // One read of the whole ledger serves both the list and today's credits (which count every job).
        const all = await options.ledger.list();
        const entries = selectEntries(all, options.services, limit);
        const credits = budget ? await budget.today(all) : countWithoutBudget(all);
        const jobs = entries.map(toListedJob);
        const lines = jobs.map(
          (job) =>
            `- ${job.jobId ?? '(not created yet)'} ${job.status}${job.title ? ` "${job.title}"` : ''} (${job.createdAt})`,
        );
        const listing =
          jobs.length === 0
            ? `No ${noun} recorded by this installation yet.`
            : `${jobs.length} ${noun} recorded by this installation (last seen status):\n${lines.join('\n')}`;
        const text = `${listing}\n${describeCredits(credits)}`;
        return {
          content: [{ type: 'text', text }],
          structuredContent: { jobs, count: jobs.length, credits },
        };
      } catch (error) {
        return toolError(error, { secrets: options.secrets });
      }
    },
  );
}

function selectEntries(
  all: readonly LedgerEntry[],
  services: readonly string[],
  limit: number,
): LedgerEntry[] {
  const wanted = new Set(services);
  return all
    .filter((entry) => wanted.has(entry.service))
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
    ...creditsOf(entry),
  };
}

function creditsOf(entry: LedgerEntry): { credits?: number } {
  const { charged, reserved } = entryCredits(entry);
  return charged + reserved > 0 ? { credits: charged + reserved } : {};
}

/** Today's credits of a ledger that has no budget object (a ledger given without a context). */
function countWithoutBudget(all: readonly LedgerEntry[]): CreditsToday {
  const day = utcDay(Date.now());
  let spent = 0;
  let reserved = 0;
  for (const entry of all) {
    const credits = entryCredits(entry);
    if (credits.day !== day) continue;
    spent += credits.charged;
    reserved += credits.reserved;
  }
  return { day, spent, reserved };
}

/** One line: "Credits today (2026-11-23 UTC): 24 spent, 12 reserved by running jobs; budget 500, 464 left." */
function describeCredits(credits: CreditsToday): string {
  const reserved = credits.reserved > 0 ? `, ${credits.reserved} reserved by jobs not charged yet` : '';
  const budget =
    credits.creditsPerDay === undefined
      ? '; no daily budget'
      : `; daily budget ${credits.creditsPerDay}, ${credits.remaining ?? 0} left`;
  return `Credits today (${credits.day} UTC): ${credits.spent} spent${reserved}${budget}.`;
}
