/**
 * State a server keeps beside its context (work that outlives one tool call, such as a running speech
 * synthesis that `get_speech` joins later). Kept per context rather than per McpServer, because over HTTP
 * every request gets a fresh McpServer on its tenant's shared context: state kept per server would be
 * gone by the next call.
 */
import type { PlatformContext } from '../context/create-platform-context.js';

/**
 * Returns a lookup that creates the value on first use for each context (from that context: its platform
 * client, its ledger) and returns that one after.
 */
export function perContext<T>(create: (context: PlatformContext) => T): (context: PlatformContext) => T {
  const values = new WeakMap<PlatformContext, T>();
  return (context) => {
    let value = values.get(context);
    if (value === undefined) {
      value = create(context);
      values.set(context, value);
    }
    return value;
  };
}
