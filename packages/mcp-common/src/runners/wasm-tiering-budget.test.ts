import { describe, expect, it } from 'vitest';
import { raiseWasmTieringBudget, WASM_TIERING_BUDGET } from './wasm-tiering-budget.js';

function run(v8Version: string, execArgv: string[] = []): string[] {
  const set: string[] = [];
  raiseWasmTieringBudget({ v8Version, execArgv, setFlags: (flags) => set.push(flags) });
  return set;
}

describe('raiseWasmTieringBudget', () => {
  it("gives Node 20's V8 the budget of later versions", () => {
    expect(run('11.3.244.8-node.38')).toEqual([`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`]);
  });

  it('leaves V8 12 and later (Node 22, 24) as they are', () => {
    expect(run('12.4.254.21-node.57')).toEqual([]);
    expect(run('13.6.233.17-node.53')).toEqual([]);
  });

  it('keeps a budget the command line sets, in either spelling', () => {
    expect(run('11.3.244.8-node.38', ['--wasm-tiering-budget=1800000'])).toEqual([]);
    expect(run('11.3.244.8-node.38', ['--wasm_tiering_budget=5'])).toEqual([]);
    expect(run('11.3.244.8-node.38', ['--wasm-tiering-budget-x=1'])).toHaveLength(1);
  });

  it('changes nothing when the V8 version cannot be read', () => {
    expect(run('')).toEqual([]);
  });
});
