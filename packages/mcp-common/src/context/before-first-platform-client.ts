/**
 * Work a bin arms at start for the moment its process first builds a platform client, that is its first
 * tool call: after the start a host waits for, before the first request to the platform. The bins use it
 * to set V8's WebAssembly tiering budget (see raiseWasmTieringBudget) without loading `node:v8` at start.
 * Each task runs once, in the process, whichever server context builds the first client.
 */
const tasks: (() => void)[] = [];

export function beforeFirstPlatformClient(task: () => void): void {
  tasks.push(task);
}

/** Runs the armed tasks, once; a task that throws does not keep the client from being built. */
export function runBeforeFirstPlatformClient(): void {
  for (const task of tasks.splice(0)) {
    try {
      task();
    } catch {
      // A tuning step only: the call goes on without it.
    }
  }
}
