/**
 * The inputs of one tool call that reads files: each may be a local path (unchanged, exactly as before, so
 * stdio callers see no difference) or an `https://` URL, downloaded into the context's private inputs
 * directory (public hosts only, capped at the service's upload limit) and handed to the platform client as
 * a local file, with every check a local file gets. `release()` at the end of the call removes the
 * downloads (an identical URL given twice in the call is downloaded once).
 */
import { createRemoteInputs, type RemoteInputs } from '@polymodal/core/download';
import type { ToolDeps } from './tool-deps.js';

/** Short wording for an input argument's description: what the argument now accepts. */
export const LOCAL_OR_HTTPS = 'absolute local path, or an https:// URL (downloaded first)';

export function resolveToolInputs(tools: ToolDeps, signal: AbortSignal): RemoteInputs {
  return createRemoteInputs({
    files: tools.platform.files,
    signal,
    ...(tools.remoteInputs?.connect ? { connect: tools.remoteInputs.connect } : {}),
    ...(tools.remoteInputs?.lookup ? { lookup: tools.remoteInputs.lookup } : {}),
  });
}
