import { describe, expect, it } from 'vitest';
import { raiseWasmTieringBudget, WASM_TIERING_BUDGET } from './wasm-tiering-budget.js';

function run(execArgv: string[] = []): string[] {
  const set: string[] = [];
  raiseWasmTieringBudget({ execArgv, setFlags: (flags) => set.push(flags) });
  return set;
}

describe('raiseWasmTieringBudget', () => {
  it('sets the budget that keeps the parser on the baseline compiler for a session', () => {
    expect(run()).toEqual([`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`]);
  });

  it('keeps a budget the command line sets, in either spelling', () => {
    expect(run(['--wasm-tiering-budget=1800000'])).toEqual([]);
    expect(run(['--wasm_tiering_budget', '5'])).toEqual([]);
    expect(run(['--wasm-tiering-budget-x=1'])).toHaveLength(1);
  });
});
