/**
 * The server bins keep the HTTP client's response parser on V8's baseline compiler for the first few
 * hundred responses of a process.
 *
 * The HTTP client (undici) parses responses with llhttp compiled to WebAssembly. V8 runs a WebAssembly
 * function with its baseline compiler (Liftoff) and recompiles it with its optimizing compiler (TurboFan)
 * once the function has used up a budget of executed code. With V8's default budget, llhttp's parser
 * function uses it up at once: TurboFan compiled it on a worker thread after the first response on Node 20
 * (budget 1,800,000; 88–139 ms of CPU and a 29 MB compiler zone, which took the peak RSS of a 500 MB
 * upload from 75 to 110 MiB: issue 14) and after the second on Node 22 and 24 (budget 13,000,000; 46–89 ms,
 * a 2–9 MB zone). An MCP server parses a few hundred small responses in a session; the optimized parser
 * saves about 0.7 µs on each (1.35 → 0.62 µs for a 244-byte response, Node 20), so the compile would pay for
 * itself after some 100,000 responses. With a budget of 2,000,000,000 the parser is compiled after about 500
 * responses instead (measured with undici's parser on Node 20.20, 22.23 and 24.21): a busy process still
 * gets the optimized parser, a session never pays for it.
 *
 * Only a process's owner should change V8 flags: the bins call this (runServerMain, at the first tool call,
 * since loading `node:v8` at start would cost every start about 2 ms), the libraries never do. A budget the
 * user set on the command line (`node --wasm-tiering-budget=…`) is kept. The flag is read when a
 * WebAssembly instance is created, and undici creates its parser's on the first connection, after this.
 */

/** About 500 responses of the parser before TurboFan compiles it (V8 11.3 to 13.6). */
export const WASM_TIERING_BUDGET = 2_000_000_000;

export interface WasmTieringEnvironment {
  /** `process.execArgv`. */
  execArgv: readonly string[];
  /** `v8.setFlagsFromString`. */
  setFlags(flags: string): void;
}

/** Raises the budget unless the command line sets one; says whether it did. */
export function raiseWasmTieringBudget(environment?: WasmTieringEnvironment): boolean {
  const { execArgv, setFlags } = environment ?? processEnvironment();
  if (execArgv.some((argument) => /^--wasm[-_]tiering[-_]budget(=|$)/.test(argument))) return false;
  setFlags(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  return true;
}

function processEnvironment(): WasmTieringEnvironment {
  return {
    execArgv: process.execArgv,
    setFlags: (flags) => process.getBuiltinModule('node:v8').setFlagsFromString(flags),
  };
}
