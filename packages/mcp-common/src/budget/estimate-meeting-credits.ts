/**
 * What a meeting summary will cost, from the platform's published rule: the greater of a configured
 * minimum and 4 credits per started minute. The minimum's value is not published, so the estimate is the
 * per-minute part only; once the job exists the platform reports its real `credits`, which then count
 * instead (see `entryCredits`).
 */
import { MEETING_CREDITS_PER_STARTED_MINUTE, MEETING_MAX_DURATION_SECONDS } from '@polymodal/core/constants';

export interface CreditEstimate {
  credits: number;
  /** How the figure was reached, for messages ("6 started minutes × 4"). */
  basis: string;
}

export function estimateMeetingCredits(durationSeconds: number | undefined): CreditEstimate {
  if (durationSeconds === undefined || !Number.isFinite(durationSeconds)) {
    // Some containers (AVI, MKV) do not tell their length without decoding. The platform refuses anything
    // over its maximum, so that maximum is the most the recording can cost: counting it keeps the budget.
    const minutes = Math.ceil(MEETING_MAX_DURATION_SECONDS / 60);
    return {
      credits: minutes * MEETING_CREDITS_PER_STARTED_MINUTE,
      basis: `its length could not be read, so it counts as the ${minutes / 60}-hour maximum: ${minutes} started minutes × ${MEETING_CREDITS_PER_STARTED_MINUTE}`,
    };
  }
  const minutes = Math.max(1, Math.ceil(durationSeconds / 60));
  return {
    credits: minutes * MEETING_CREDITS_PER_STARTED_MINUTE,
    basis: `${minutes} started minute${minutes === 1 ? '' : 's'} × ${MEETING_CREDITS_PER_STARTED_MINUTE}`,
  };
}
