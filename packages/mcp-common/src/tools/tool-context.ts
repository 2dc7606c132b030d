/**
 * What every tool of a Polymodal server receives: the context (platform client, files, ledger, log), the
 * client's roots and the tool deadline. A server's group may build more on it (`toolGroup`'s `toolContext`).
 */

import type { RemoteInputsOptions } from '@polymodal/core/download';
import type { ServerContext } from '../context/create-server-context.js';
import type { RootsSync } from '../roots/sync-roots.js';

export interface ToolContext {
  context: ServerContext;
  roots: RootsSync;
  /** Seconds one tool call may take before it answers with what it has. */
  toolDeadlineSeconds: number;
  /** How remote inputs reach their hosts (tests only; see `PolymodalServerDeps.remoteInputs`). */
  remoteInputs?: RemoteInputsTestSeam;
}

/** Tests only: how downloads reach a loopback server. Never read from configuration. */
export type RemoteInputsTestSeam = Pick<RemoteInputsOptions, 'connect' | 'lookup'>;
