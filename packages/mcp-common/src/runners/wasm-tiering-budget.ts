/**
 * The server bins give Node 20's V8 the WebAssembly tiering budget of later V8 versions.
 *
 * The HTTP client (undici) parses responses with llhttp compiled to WebAssembly. V8 runs a WebAssembly
 * function with its baseline compiler (Liftoff) and recompiles it with its optimizing compiler (TurboFan)
 * once the function has used up a budget of executed code. In the V8 of Node 20 (11.3) that budget is
 * 1,800,000, and llhttp's parser uses it up on the first response it parses: the first platform call of a
 * process compiled the whole parser with TurboFan on a worker thread, about 90 ms of CPU and 11 MiB of RSS
 * (30 MiB more at the peak of a large upload: issue 14), for a parser that then reads a few hundred header
 * bytes per call. The V8 of Node 22 and 24 (12.4 and later) has a budget of 13,000,000, and the same
 * first response compiles nothing (measured with undici's own parser on Node 20.20, 22.23 and 24.21).
 * The parser is still optimized once it is really hot (many thousands of responses), as on Node 22.
 *
 * Only a process's owner should change V8 flags: the bins call this (runServerMain, at the first tool call,
 * since loading `node:v8` at start would cost every start about 2 ms), the libraries never do. A budget the
 * user set on the command line (`node --wasm-tiering-budget=…`) is kept. The flag is read when a
 * WebAssembly instance is created, and undici creates its parser's on the first connection, after this.
 */

/** The default of V8 12.4 (Node 22) and later. */
export const WASM_TIERING_BUDGET = 13_000_000;

export interface WasmTieringEnvironment {
  /** `process.versions.v8`. */
  v8Version: string;
  /** `process.execArgv`. */
  execArgv: readonly string[];
  /** `v8.setFlagsFromString`. */
  setFlags(flags: string): void;
}

/** Raises the budget when V8 is older than 12 and the command line does not set it; says whether it did. */
export function raiseWasmTieringBudget(environment?: WasmTieringEnvironment): boolean {
  const { v8Version, execArgv, setFlags } = environment ?? processEnvironment();
  const major = Number.parseInt(v8Version, 10);
  if (!Number.isInteger(major) || major >= 12) return false;
  if (execArgv.some((argument) => /^--wasm[-_]tiering[-_]budget(=|$)/.test(argument))) return false;
  setFlags(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  return true;
}

function processEnvironment(): WasmTieringEnvironment {
  return {
    v8Version: process.versions.v8,
    execArgv: process.execArgv,
    setFlags: (flags) => process.getBuiltinModule('node:v8').setFlagsFromString(flags),
  };
}
