/**
 * Adds to every tool result that links a saved output (a file:// `resource_link` into the output
 * directory) the same file as a `polymodal://outputs/<name>` resource link, readable with
 * `resources/read`. Over Streamable HTTP the file:// link is dropped: it names the server's disk, which the
 * caller cannot open, and so is the server's path of each linked output wherever the result's text or
 * structured content names it ("saved to /srv/…/out/summary.md", `savedPath`, `next`): a remote caller reads
 * `polymodal://outputs/summary.md` instead, and learns nothing of the server's directories. Over stdio (and
 * in-process) the file:// link stays first and paths stay as they are, since local hosts open them.
 * Applied to every tool's result by the installer (`installTools`), so no tool has to know which transport it
 * answers on.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileAccess } from '@polymodal/core';
import type { CallToolResult, ResourceLink } from '../protocol/sdk-types.js';
import { outputResourceUri } from './output-resources.js';

/** The result with a `polymodal://outputs/` link beside (stdio) or instead of (HTTP) each output's file:// link. */
export function addResourceLinks(result: CallToolResult, files: FileAccess, remote: boolean): CallToolResult {
  if (!Array.isArray(result?.content)) return result;
  // Resolved only for a result that links something: most results link nothing, and the real path is a
  // system call per call.
  let resolved: string | undefined;
  const outputDir = () => {
    if (resolved === undefined) resolved = realOutputDir(files);
    return resolved;
  };
  /** Server path of each linked output → its resource URI. */
  const renamed = new Map<string, string>();
  const content: CallToolResult['content'] = [];
  for (const item of result.content) {
    const resource = item.type === 'resource_link' ? asOutputResource(item, outputDir()) : undefined;
    if (!resource) {
      content.push(item);
      continue;
    }
    renamed.set(resource.filePath, resource.link.uri);
    if (!remote) content.push(item);
    content.push(resource.link);
  }
  if (renamed.size === 0) return result;
  if (!remote) return { ...result, content };
  // The path as the tool wrote it may be the output directory as configured rather than its real path.
  const configured = path.resolve(files.outputDir);
  if (configured !== outputDir()) {
    for (const [filePath, uri] of [...renamed]) {
      renamed.set(path.join(configured, path.basename(filePath)), uri);
    }
  }
  // Longest first, so that a path is never replaced by a shorter one it starts with.
  const paths = [...renamed.keys()].sort((a, b) => b.length - a.length);
  const rename = (text: string) =>
    paths.reduce((replaced, filePath) => replaced.split(filePath).join(renamed.get(filePath)), text);
  return {
    ...result,
    content: content.map((item) => (item.type === 'text' ? { ...item, text: rename(item.text) } : item)),
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: renameStrings(result.structuredContent, rename) as Record<string, unknown> }),
  };
}

/** `value` with `rename` applied to every string in it, at any depth. */
function renameStrings(value: unknown, rename: (text: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((item) => renameStrings(item, rename));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renameStrings(item, rename)]));
  }
  return value;
}

function realOutputDir(files: FileAccess): string {
  try {
    return realpathSync(files.outputDir);
  } catch {
    return path.resolve(files.outputDir);
  }
}

function asOutputResource(
  link: ResourceLink,
  outputDir: string,
): { link: ResourceLink; filePath: string } | undefined {
  if (!link.uri.startsWith('file:')) return undefined;
  let filePath: string;
  try {
    filePath = fileURLToPath(link.uri);
  } catch {
    return undefined;
  }
  if (path.dirname(filePath) !== outputDir) return undefined;
  return { link: { ...link, uri: outputResourceUri(path.basename(filePath)) }, filePath };
}
