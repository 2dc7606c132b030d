/**
 * Results point at files instead of carrying them: hosts reject results over ~1 MB and the stdio reader
 * caps a message at 10 MB, so a saved output is returned as a `resource_link` with a file:// URI (which a
 * local host opens) — and, added by the server factory (`linkOutputResources`), one with a
 * `polymodal://outputs/` URI that any client, a remote one too, reads with `resources/read`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResourceLink } from '../protocol/sdk-types.js';

/** How many outputs' platform URLs are remembered (for the message that refuses a too large read). */
const REMEMBERED_PLATFORM_URLS = 1_000;
const platformUrls = new Map<string, string>();

export function outputLink(
  filePath: string,
  options: {
    mimeType: string;
    description?: string;
    size?: number;
    /** Where the platform serves the same file, when it does (named when the file is too big to read). */
    platformUrl?: string;
  },
): ResourceLink {
  if (options.platformUrl) rememberPlatformUrl(filePath, options.platformUrl);
  return {
    type: 'resource_link',
    uri: pathToFileURL(filePath).href,
    name: path.basename(filePath),
    mimeType: options.mimeType,
    ...(options.description ? { description: options.description } : {}),
    ...(options.size !== undefined ? { size: options.size } : {}),
  };
}

function rememberPlatformUrl(filePath: string, url: string): void {
  platformUrls.delete(filePath);
  platformUrls.set(filePath, url);
  // Oldest first out: a Map iterates in insertion order.
  for (const oldest of platformUrls.keys()) {
    if (platformUrls.size <= REMEMBERED_PLATFORM_URLS) break;
    platformUrls.delete(oldest);
  }
}

/** The platform's URL of a saved output, when the tool that saved it gave one. */
export function platformUrlOf(filePath: string): string | undefined {
  return platformUrls.get(filePath);
}
