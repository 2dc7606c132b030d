/**
 * Adds to every tool result that links a saved output (a file:// `resource_link` into the output
 * directory) the same file as a `polymodal://outputs/<name>` resource link, readable with
 * `resources/read`. Over Streamable HTTP the file:// link is dropped: it names the server's disk, which the
 * caller cannot open. Over stdio (and in-process) it stays first, since local hosts open it. Installed once
 * per server around registration, so no tool has to know which transport it answers on.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { FileAccess } from '@polymodal/core';
import { outputResourceUri } from './output-resources.js';

type LooseRegister = (name: string, config: unknown, ...rest: unknown[]) => unknown;
type LooseHandler = (...parameters: unknown[]) => unknown;

/** Runs `register` with every tool it registers on `server` answering with output resource links. */
export function linkOutputResources(server: McpServer, files: FileAccess, register: () => void): void {
  const hadOwn = Object.hasOwn(server, 'registerTool');
  const registerTool = server.registerTool;
  const original = registerTool as unknown as LooseRegister;
  const linking: LooseRegister = (name, config, ...rest) => {
    const handler = rest.at(-1);
    if (typeof handler !== 'function') return original.call(server, name, config, ...rest);
    const wrapped: LooseHandler = async (...parameters) => {
      const result = await (handler as LooseHandler)(...parameters);
      // The SDK passes `extra` last, after the arguments when the tool has an input schema.
      const extra = parameters.at(-1) as { requestInfo?: unknown } | undefined;
      return addResourceLinks(result as CallToolResult, files, extra?.requestInfo !== undefined);
    };
    return original.call(server, name, config, ...rest.slice(0, -1), wrapped);
  };
  server.registerTool = linking as unknown as McpServer['registerTool'];
  try {
    register();
  } finally {
    if (hadOwn) server.registerTool = registerTool;
    else delete (server as { registerTool?: unknown }).registerTool;
  }
}

/** The result with a `polymodal://outputs/` link beside (stdio) or instead of (HTTP) each output's file:// link. */
export function addResourceLinks(result: CallToolResult, files: FileAccess, remote: boolean): CallToolResult {
  if (!Array.isArray(result?.content)) return result;
  const outputDir = realOutputDir(files);
  let changed = false;
  const content: CallToolResult['content'] = [];
  for (const item of result.content) {
    const resource = item.type === 'resource_link' ? asOutputResource(item, outputDir) : undefined;
    if (!resource) {
      content.push(item);
      continue;
    }
    changed = true;
    if (!remote) content.push(item);
    content.push(resource);
  }
  return changed ? { ...result, content } : result;
}

function realOutputDir(files: FileAccess): string {
  try {
    return realpathSync(files.outputDir);
  } catch {
    return path.resolve(files.outputDir);
  }
}

function asOutputResource(link: ResourceLink, outputDir: string): ResourceLink | undefined {
  if (!link.uri.startsWith('file:')) return undefined;
  let filePath: string;
  try {
    filePath = fileURLToPath(link.uri);
  } catch {
    return undefined;
  }
  if (path.dirname(filePath) !== outputDir) return undefined;
  return { ...link, uri: outputResourceUri(path.basename(filePath)) };
}
