/**
 * `list_jobs`: the jobs this installation started, read from the local job ledger. It lets an agent find
 * and resume work after a host restart or a cut-off call without paying again. Read-only and local: it does
 * not call the platform, so statuses are the last ones this installation saw. It also shows the credits
 * of today (UTC) from the same ledger: charged, reserved by jobs not charged yet, and with a daily budget
 * what is left of it — per tenant, since each tenant has a ledger of its own.
 *
 * A call reads one page of the ledger and the entries written since yesterday (today's credits), never the
 * whole history: `cursor` pages back through all of it, and `service` and `status` narrow it. How many
 * jobs there are in all is not said: neither store can count a history without reading it.
 */
import { ValidationError } from '@polymodal/core/errors';
import type { JobLedger, LedgerEntry } from '@polymodal/core/ledger';
import { z } from 'zod';
import {
  type CreditBudget,
  type CreditsToday,
  creditBudgetOf,
  creditsTodayWithoutBudget,
} from '../budget/create-credit-budget.js';
import { entryCredits } from '../budget/entry-credits.js';
import { hideServerPaths } from '../errors/hide-server-paths.js';
import { toolError } from '../errors/tool-error.js';
import { defineTool, type Tool } from '../tools/define-tool.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import { jobServicesOf, type McpServerName } from './job-services.js';
import { JOB_STATUS_GROUPS, statusFilterOf } from './job-status-groups.js';

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
  // Names that say what they take; the answer says how to page on. Every byte here is read by the model on
  // every turn, so the texts that guide it are in the answer. Unbounded here, checked where used: a cursor
  // is decoded against its exact shape, a service against the server's own.
  cursor: z.string().optional(),
  service: z.string().optional(),
  status: z.enum(JOB_STATUS_GROUPS).optional(),
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
  const getHint = options.getTool
    ? `Live state: ${options.getTool} (continue a job there instead of paying again).`
    : 'Continue a job instead of paying again.';
  return defineTool({
    name: options.name ?? 'list_jobs',
    title: `List ${noun} started here`,
    description: `${noun[0]?.toUpperCase() ?? ''}${noun.slice(1)} started here, newest first (local, free); today's credits.`,
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
      async ({ limit, cursor, service, status }) => {
        try {
          const { ledger } = context;
          const page = await ledger.page({
            services: service === undefined ? options.services : [servedService(service, options.services)],
            limit,
            ...(cursor === undefined ? {} : { cursor }),
            ...(status === undefined ? {} : statusFilterOf(status)),
          });
          const budget = options.budget ?? creditBudgetOf(ledger);
          const credits = budget ? await budget.today() : await creditsTodayWithoutBudget(ledger);
          const hidden = context.hiddenDirs();
          const jobs = await Promise.all(page.entries.map((entry) => toListedJob(entry, ledger, hidden)));
          const lines = jobs.map(
            (job) =>
              `- ${job.jobId ?? '(not created yet)'} ${job.status}${job.title ? ` "${job.title}"` : ''} (${job.createdAt})${describeParts(job.parts)}`,
          );
          const which = [status, service].filter(Boolean).join(' ');
          const kind = which ? `${which} ${noun}` : noun;
          const listing =
            jobs.length === 0
              ? `No ${kind} ${cursor === undefined ? 'recorded by this installation yet' : 'further back'}.`
              : `${jobs.length} ${kind} recorded by this installation (last seen status):\n${lines.join('\n')}`;
          const more = page.nextCursor
            ? `\nOlder ${noun}: call ${options.name ?? 'list_jobs'} again with cursor "${page.nextCursor}".`
            : '';
          const hint = `\n${getHint}`;
          return {
            content: [{ type: 'text', text: `${listing}${more}${hint}\n${describeCredits(credits)}` }],
            structuredContent: {
              jobs,
              count: jobs.length,
              credits,
              ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
            },
          };
        } catch (error) {
          return toolError(error, { secrets: context.secrets, hiddenDirs: context.hiddenDirs() });
        }
      },
  });
}

/** `service` when this tool lists it; a refusal naming the ones it does otherwise. */
function servedService(service: string, services: readonly string[]): string {
  if (services.includes(service)) return service;
  throw new ValidationError(
    `service must be one of ${services.map((name) => JSON.stringify(name)).join(', ')} (got ${JSON.stringify(service)}).`,
    [{ path: 'service', message: 'not a service of this server' }],
  );
}

/** An entry's `request.parts`: the ledger entries (service and fingerprint) of the jobs it is made of. */
const partRefsSchema = z.array(z.object({ service: z.string(), fingerprint: z.string() }));

async function toListedJob(
  entry: LedgerEntry,
  ledger: JobLedger,
  hiddenDirs: readonly string[],
): Promise<ListedJob> {
  const recorded = typeof entry.request?.file === 'string' ? entry.request.file : undefined;
  // A caller on another machine sees the file as it knows it, not where it lies on this server.
  const file = recorded === undefined ? undefined : hideServerPaths(recorded, hiddenDirs);
  const parts = await partsOf(entry, ledger);
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
async function partsOf(entry: LedgerEntry, ledger: JobLedger): Promise<ListedJob['parts']> {
  const refs = partRefsSchema.safeParse(entry.request?.parts);
  if (!refs.success) return undefined;
  return Promise.all(
    refs.data.map(async (ref) => {
      const part = await ledger.findByFingerprint(ref.service, ref.fingerprint);
      return { jobId: part?.id ?? null, status: part?.lastStatus ?? 'NOT_SENT' };
    }),
  );
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

/** One line: "Credits today (2026-11-23 UTC): 24 spent, 12 reserved by running jobs; budget 500, 464 left." */
function describeCredits(credits: CreditsToday): string {
  const reserved = credits.reserved > 0 ? `, ${credits.reserved} reserved by jobs not charged yet` : '';
  const budget =
    credits.creditsPerDay === undefined
      ? '; no daily budget'
      : `; daily budget ${credits.creditsPerDay}, ${credits.remaining ?? 0} left`;
  return `Credits today (${credits.day} UTC): ${credits.spent} spent${reserved}${budget}.`;
}
