/**
 * Results point at files instead of carrying them: hosts reject results over ~1 MB and the stdio reader
 * caps a message at 10 MB, so a saved output is returned as a `resource_link` with a file:// URI.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';

export function outputLink(
  filePath: string,
  options: { mimeType: string; description?: string; size?: number },
): ResourceLink {
  return {
    type: 'resource_link',
    uri: pathToFileURL(filePath).href,
    name: path.basename(filePath),
    mimeType: options.mimeType,
    ...(options.description ? { description: options.description } : {}),
    ...(options.size !== undefined ? { size: options.size } : {}),
  };
}
