/**
 * The tool result for a call refused by the credit budget: the refusal's own words (the budget, what was
 * spent, what the call would cost, when to try again), not a generic "configuration error".
 */

import { redactSecrets } from '@polymodal/core/config';
import { TOOL_ERROR_META_KEY } from '../errors/tool-error.js';
import type { CallToolResult } from '../protocol/sdk-types.js';
import type { BudgetExceededError } from './budget-exceeded-error.js';

export function budgetToolError(error: BudgetExceededError, secrets: readonly string[]): CallToolResult {
  const message = redactSecrets(error.message, secrets);
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [TOOL_ERROR_META_KEY]: { kind: 'budget', message } },
  };
}
