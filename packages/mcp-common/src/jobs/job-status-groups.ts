/**
 * The statuses `list_jobs` filters by, in the words a person uses ("only running jobs", "only failed ones"),
 * mapped to the statuses the ledger records: each service writes its platform's own (`COMPLETED`,
 * `SUCCESS`, `done`, `canceled`…) and the job engine its steps (`SUBMITTING`, `UPLOADED`, `UNKNOWN`,
 * `NOT_CREATED`). A status not named here is one a job is still in, so "running" is every other status:
 * a job is never hidden from every filter.
 */
import type { LedgerPageOptions } from '@polymodal/core/ledger';

export const JOB_STATUS_GROUPS = ['running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatusGroup = (typeof JOB_STATUS_GROUPS)[number];

const ENDED: Record<Exclude<JobStatusGroup, 'running'>, readonly string[]> = {
  completed: ['COMPLETED', 'SUCCESS', 'DONE', 'done', 'completed', 'succeeded', 'REGISTERED'],
  // NOT_CREATED: the submission stopped before the platform made a job (refused, or given up).
  failed: ['FAILED', 'FAILURE', 'failed', 'error', 'NOT_CREATED'],
  // A meeting deleted on the platform ended too; it shows with the cancelled ones.
  cancelled: ['CANCELLED', 'CANCELED', 'cancelled', 'canceled', 'DELETED'],
};

/** The ledger page's status filter for a group. */
export function statusFilterOf(
  group: JobStatusGroup,
): Pick<LedgerPageOptions, 'statuses' | 'excludeStatuses'> {
  if (group === 'running') return { excludeStatuses: Object.values(ENDED).flat() };
  return { statuses: ENDED[group] };
}
