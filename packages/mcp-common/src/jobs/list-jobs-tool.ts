/**
 * `list_jobs`: the jobs this installation started, read from the local job ledger. It lets an agent find
 * and resume work after a host restart or a cut-off call without paying again. Read-only and local: it does
 * not call the platform, so statuses are the last ones this installation saw. It also shows the credits
 * of today (UTC) from the same ledger: charged, reserved by jobs not charged yet, and with a daily budget
 * what is left of it — per tenant, since each tenant has a ledger of its own.
 */
import type { LedgerEntry } from '@polymodal/core/ledger';
import { z } from 'zod';
import { type CreditBudget, type CreditsToday, creditBudgetOf } from '../budget/create-credit-budget.js';
import { entryCredits } from '../budget/entry-credits.js';
import { utcDay } from '../budget/utc-day.js';
import { hideServerPaths } from '../errors/hide-server-paths.js';
import { toolError } from '../errors/tool-error.js';
import { defineTool, type Tool } from '../tools/define-tool.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import { jobServicesOf, type McpServerName } from './job-services.js';

export interface ListJobsToolOptions {
  /** Ledger services this server owns (e.g. `['meeting']`). */
  services: readonly string[];
  /** Tool name, default `list_jobs`. */
  name?: string;
  /** Tool that shows a job's live state, named in the description and hints (e.g. `get_meeting`). */
  getTool?: string;
  /** Noun for the jobs in texts, default "jobs". */
  noun?: string;
  /** The daily credit budget to show; default the one created on the context's ledger. */
  budget?: CreditBudget;
}

/** One job as listed (the structured result's `jobs`). */
const jobEntrySchema = z.object({
  service: z.string(),
  /** Null when the submission was interrupted before the job was created. */
  jobId: z.string().nullable(),
  /** Last status this installation saw (not live). */
  status: z.string(),
  title: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  file: z.string().optional(),
  /** Charged (as the platform reported) or, until then, reserved; absent when none are known. */
  credits: z.number().optional(),
  /**
   * The jobs a job is made of (a long speech synthesis: one platform task per part), in order, each with
   * its own job id (null while not sent) and last seen status.
   */
  parts: z.array(z.object({ jobId: z.string().nullable(), status: z.string() })).optional(),
});

export type ListedJob = z.infer<typeof jobEntrySchema>;

// Built once per process, whatever the tool's name and texts: every McpServer (one per HTTP request or
// session) registers these same objects, and the shared tools/list answer is keyed on their identity.
const listJobsInput = {
  limit: z.number().int().min(1).max(100).default(20),
};

// What tools/list shows: the fields an agent acts on, loose so that the rest of each entry (service, title,
// times, file, credits) and of today's credits still validates. The README's Tools section lists them all.
const listJobsOutput = z.looseObject({
  jobs: z.array(z.looseObject({ jobId: z.string().nullable(), status: z.string() })),
  credits: z.looseObject({ spent: z.number() }),
});

/** What `list_jobs` lists for the given servers: their job services, and the tools that continue those jobs. */
export function jobsServedBy(
  servers: readonly McpServerName[],
): Required<Pick<ListJobsToolOptions, 'services' | 'getTool'>> {
  const served = servers.flatMap((server) => jobServicesOf(server));
  return {
    services: served.map((row) => row.service),
    getTool: [...new Set(served.map((row) => row.waitTool))].join(', '),
  };
}

/** `list_jobs` over the services given, reading the ledger of the calling context (its tenant's, over HTTP). */
export function listJobsTool(options: ListJobsToolOptions): Tool<ToolDeps> {
  const noun = options.noun ?? 'jobs';
  const getHint = options.getTool ? ` Live state: ${options.getTool}.` : '';
  return defineTool({
    name: options.name ?? 'list_jobs',
    title: `List ${noun} started here`,
    description:
      `Lists the ${noun} started here, newest first (local, free; last seen status), and today's credits.` +
      `${getHint} Find a jobId here instead of paying again.`,
    inputSchema: listJobsInput,
    outputSchema: listJobsOutput,
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    handler:
      ({ platform: context }: ToolDeps) =>
      async ({ limit }) => {
        try {
          const budget = options.budget ?? creditBudgetOf(context.ledger);
          // One read of the whole ledger serves both the list and today's credits (which count every job).
          const all = await context.ledger.list();
          const entries = selectEntries(all, options.services, limit);
          const credits = budget ? await budget.today(all) : countWithoutBudget(all);
          const byKey = new Map(all.map((entry) => [entryKey(entry), entry]));
          const hidden = context.hiddenDirs();
          const jobs = entries.map((entry) => toListedJob(entry, byKey, hidden));
          const lines = jobs.map(
            (job) =>
              `- ${job.jobId ?? '(not created yet)'} ${job.status}${job.title ? ` "${job.title}"` : ''} (${job.createdAt})${describeParts(job.parts)}`,
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
          return toolError(error, { secrets: context.secrets, hiddenDirs: context.hiddenDirs() });
        }
      },
  });
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

/** An entry's `request.parts`: the ledger entries (service and fingerprint) of the jobs it is made of. */
const partRefsSchema = z.array(z.object({ service: z.string(), fingerprint: z.string() }));

const entryKey = (entry: { service: string; fingerprint: string }) =>
  `${entry.service}\n${entry.fingerprint}`;

function toListedJob(
  entry: LedgerEntry,
  byKey: ReadonlyMap<string, LedgerEntry>,
  hiddenDirs: readonly string[],
): ListedJob {
  const recorded = typeof entry.request?.file === 'string' ? entry.request.file : undefined;
  // A caller on another machine sees the file as it knows it, not where it lies on this server.
  const file = recorded === undefined ? undefined : hideServerPaths(recorded, hiddenDirs);
  const parts = partsOf(entry, byKey);
  return {
    service: entry.service,
    jobId: entry.id,
    status: entry.lastStatus,
    title: entry.title ?? null,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    ...(file ? { file } : {}),
    ...creditsOf(entry),
    ...(parts ? { parts } : {}),
  };
}

/** The parts an entry names, as their own entries say (a part not recorded yet was not sent). */
function partsOf(entry: LedgerEntry, byKey: ReadonlyMap<string, LedgerEntry>): ListedJob['parts'] {
  const refs = partRefsSchema.safeParse(entry.request?.parts);
  if (!refs.success) return undefined;
  return refs.data.map((ref) => {
    const part = byKey.get(entryKey(ref));
    return { jobId: part?.id ?? null, status: part?.lastStatus ?? 'NOT_SENT' };
  });
}

/** " — parts: 3 SUCCESS, 7 NOT_SENT" */
function describeParts(parts: ListedJob['parts']): string {
  if (!parts || parts.length === 0) return '';
  const counts = new Map<string, number>();
  for (const part of parts) counts.set(part.status, (counts.get(part.status) ?? 0) + 1);
  return ` — parts: ${[...counts].map(([status, count]) => `${count} ${status}`).join(', ')}`;
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
