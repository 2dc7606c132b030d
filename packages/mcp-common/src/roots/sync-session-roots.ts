/**
 * MCP roots for a server on a shared context (the HTTP runner's per-tenant one): the client's roots widen
 * what this client's own tool calls may read, and nobody else's.
 *
 * Roots are asked for within a tool call, as a request related to that call (`RootsRequest`), so over
 * Streamable HTTP the request travels on the call's own response stream: a `roots/list` sent from
 * `oninitialized` would go to the standalone GET stream, which the client has not opened yet, and be
 * dropped. They are asked on the first call that needs files (`ready()`) and again after
 * `notifications/roots/list_changed`. On 2025-11-25 only a session can carry such a request: a stateless
 * server never saw the client's capabilities, so it asks nothing and the configured directories alone apply.
 * A 2026-07-28 request that declares `roots` is asked within the call, as an input-required result
 * (`askInCall`); its server lives for that request only, so each such call asks. Used only
 * for clients on this machine (loopback without authentication): a remote client's roots are never asked
 * for (see `createPolymodalServer`).
 *
 * The shared FileAccess is also the one the platform client reads files through, so it cannot be swapped
 * for a session's; instead each tool call runs in an AsyncLocalStorage scope naming its session, and the
 * shared FileAccess answers a call of a session that has roots with that session's own FileAccess (the
 * configured directories plus the session's roots). Outside such a call it answers exactly as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inputRequired, type McpServer } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import { createFileAccess } from '@polymodal/core/files';
import type { Logger } from '../logging/create-logger.js';
import { askInCall, currentCall, isModernRequest, requestCapabilities } from '../server/call-questions.js';
import { fileUrisToPaths, ROOTS_KEY, type RootsRequest, type RootsSync, rootDirsOf } from './sync-roots.js';

interface SessionRoots {
  /** The shared FileAccess this session's view is layered on. */
  base: FileAccess;
  /** The configured directories plus this session's roots; undefined while it has none. */
  view: FileAccess | undefined;
}

interface ToolCallScope {
  session: SessionRoots;
  request: RootsRequest;
}

const scopes = new AsyncLocalStorage<ToolCallScope>();

/** The shared FileAccess's own methods, kept before it is layered, so a view is built from the real ones. */
const originals = new WeakMap<
  FileAccess,
  Pick<FileAccess, 'allowedDirs' | 'resolveReadable' | 'openReadable'>
>();

export interface SyncSessionRootsOptions {
  log?: Logger;
  /** Upper bound on one roots/list request, so a silent client cannot stall tool calls. */
  timeoutMs?: number;
  /** For `~` in paths the session reads (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export function syncSessionRoots(
  server: McpServer,
  files: FileAccess,
  options: SyncSessionRootsOptions = {},
): RootsSync {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const base = layerOnce(files);
  const session: SessionRoots = { base: files, view: undefined };
  let stale = true;
  let generation = 0;
  let pending: Promise<void> = Promise.resolve();

  const load = async (request: RootsRequest, ticket: number) => {
    try {
      const { roots } = await request.listRoots({ timeout: timeoutMs });
      // A slower, older answer must not overwrite a newer one.
      if (ticket !== generation) return;
      apply(fileUrisToPaths(roots.map((root) => root.uri)));
    } catch (error) {
      // Asked again only after list_changed: a client that does not answer must not cost every call 5 s.
      options.log?.warning('could not read the client roots; only POLYMODAL_ALLOWED_DIRS apply', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  /** This session's view: the configured directories and `dirs`. */
  const apply = (dirs: string[]) => {
    session.view =
      dirs.length === 0
        ? undefined
        : createFileAccess({
            allowedDirs: [...base.allowedDirs(), ...dirs],
            outputDir: files.outputDir,
            // The tenant's own inputs directory, so its downloaded inputs stay readable in this view.
            inputsDir: files.inputsDir,
            // Refusals through the view name as much of the server's paths as the shared one's do.
            revealPaths: files.revealsPaths,
            env: options.env ?? process.env,
          });
    options.log?.debug(`this session reads ${dirs.length} MCP root(s) besides the configured directories`);
  };

  const refresh = () => {
    const ctx = currentCall();
    if (ctx && isModernRequest(ctx)) {
      if (!requestCapabilities(ctx)?.roots || scopes.getStore()?.session !== session) return pending;
      stale = false;
      pending = askInCall(ROOTS_KEY, inputRequired.listRoots()).then((answer) => apply(rootDirsOf(answer)));
      return pending;
    }
    const scope = scopes.getStore();
    if (scope?.session !== session || !server.server.getClientCapabilities()?.roots) return pending;
    stale = false;
    generation += 1;
    pending = load(scope.request, generation);
    return pending;
  };

  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    stale = true;
  });

  return {
    ready: () => (stale ? refresh() : pending),
    refresh,
    within: (request, call) => scopes.run({ session, request }, call),
  };
}

/** Makes `files` answer a scoped call of a session with roots through that session's view; once per object. */
function layerOnce(files: FileAccess): Pick<FileAccess, 'allowedDirs' | 'resolveReadable' | 'openReadable'> {
  const known = originals.get(files);
  if (known) return known;
  const own = {
    allowedDirs: files.allowedDirs,
    resolveReadable: files.resolveReadable,
    openReadable: files.openReadable,
  };
  originals.set(files, own);
  const viewOf = () => {
    const scope = scopes.getStore();
    return scope?.session.base === files ? scope.session.view : undefined;
  };
  files.allowedDirs = () => (viewOf() ?? own).allowedDirs();
  files.resolveReadable = (input) => (viewOf() ?? own).resolveReadable(input);
  files.openReadable = (input) => (viewOf() ?? own).openReadable(input);
  return own;
}
