/**
 * A paid call refused because it would take its tenant over the daily credit budget. Nothing was uploaded
 * or submitted.
 *
 * It is a ConfigError (kind `config`) on purpose: the limit is the operator's configuration, and the job
 * engine records a submission refused by our own configuration as NOT_CREATED (proven never sent), so the
 * refused call leaves no "unknown outcome" behind and counts nothing. `isInstance` tells it apart from
 * other configuration errors by its own brand.
 */
import { ConfigError } from '@polymodal/core/errors';

const BUDGET_BRAND = Symbol.for('polymodal.budget-exceeded');

export interface BudgetExceededDetails {
  creditsPerDay: number;
  /** Credits spent or reserved today before this call. */
  spent: number;
  /** What this call would cost, as estimated. */
  cost: number;
  basis: string;
  /** UTC day the budget was counted for. */
  day: string;
  tenant?: string | undefined;
  /** The setting that raises the budget (`budget.creditsPerDay` or POLYMODAL_CREDITS_PER_DAY). */
  setting: string;
}

export class BudgetExceededError extends ConfigError {
  readonly [BUDGET_BRAND] = true;
  readonly details: BudgetExceededDetails;

  constructor(details: BudgetExceededDetails, what = 'this call') {
    const whose = details.tenant === undefined ? '' : ` for tenant ${details.tenant}`;
    super(
      details.setting,
      `Daily credit budget of ${details.creditsPerDay}${whose}: ${details.spent} spent or reserved today ` +
        `(${details.day} UTC), ${what} would cost about ${details.cost} (${details.basis}). Nothing was ` +
        `uploaded or submitted. Try again after 00:00 UTC or raise ${details.setting}.`,
    );
    this.details = details;
  }

  static override isInstance(value: unknown): value is BudgetExceededError {
    return ConfigError.isInstance(value) && (value as { [BUDGET_BRAND]?: unknown })[BUDGET_BRAND] === true;
  }
}
