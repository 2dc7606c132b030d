export * from './describe-startup-error.js';
export * from './parse-server-args.js';
export * from './run-http-server.js';
export * from './run-server-main.js';
export * from './run-stdio-server.js';
export * from './server-instance.js';
export * from './unauthenticated-bind-problem.js';
export * from './wasm-tiering-budget.js';
