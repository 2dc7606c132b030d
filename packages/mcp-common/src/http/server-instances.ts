/**
 * The MCP servers the HTTP service builds from the factory: one per request (per-request serving) or one
 * per session, each on its caller's context. Counted while alive (`HttpServerHandle.instances()`), so a test
 * or an operator can see that nothing stays behind, and disposed of at most once, whichever path (the
 * SDK closing it, the session ending, shutdown) gets there first.
 */
import type { Logger } from '../logging/create-logger.js';
import type { ServerFactory, ServerInstance } from '../runners/server-instance.js';
import type { TenantAccess, TenantCaller } from '../tenants/create-tenant-access.js';

export interface BuiltServer {
  instance: ServerInstance;
  /** Closes the server and runs its cleanup, once; later calls wait for the first. */
  dispose: () => Promise<void>;
}

export interface ServerInstances {
  build(caller: TenantCaller | undefined): Promise<BuiltServer>;
  /** How many are built and not yet disposed of. */
  alive(): number;
}

export function createServerInstances(factory: ServerFactory, log: Logger | undefined): ServerInstances {
  let alive = 0;
  return {
    async build(caller) {
      const instance = await factory(caller ? { platform: caller.context } : undefined);
      alive += 1;
      return { instance, dispose: disposeOnce(instance, log, () => (alive -= 1)) };
    },
    alive: () => alive,
  };
}

/**
 * Builds one server and disposes of it before serving, so that a configuration error stops the start
 * instead of the first request. With tenants it is built on the first tenant's context; with none listed
 * yet there is no context to build on, and nothing is probed.
 */
export async function probeServerFactory(
  factory: ServerFactory,
  access: TenantAccess | undefined,
): Promise<void> {
  const context = access?.probeContext();
  if (access && !context) return;
  const probe = await factory(context ? { platform: context } : undefined);
  await probe.cleanup();
}

function disposeOnce(
  instance: ServerInstance,
  log: Logger | undefined,
  onDisposed: () => void,
): () => Promise<void> {
  let disposed: Promise<void> | undefined;
  return () => {
    disposed ??= (async () => {
      try {
        await instance.server.close();
        await instance.cleanup();
      } catch (error) {
        log?.warning('server cleanup failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      } finally {
        onDisposed();
      }
    })();
    return disposed;
  };
}
