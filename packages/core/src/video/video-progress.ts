import type { VideoJob } from '../contracts/video.js';

/**
 * A percentage from the best-effort progress object, when it carries one. Kept apart from the job client,
 * so that a tool presenting a job does not load the client.
 */
export function videoProgressPercent(job: VideoJob): number | undefined {
  if (job.status === 'done') return 100;
  const percent = job.progress?.percent;
  return typeof percent === 'number' && Number.isFinite(percent) ? percent : undefined;
}
