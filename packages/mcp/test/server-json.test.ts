/**
 * The MCP registry entries: each server.json names its npm package and version as package.json does (the
 * registry checks `mcpName`), runs over stdio, and lists every variable the bin's help names, with the
 * required ones marked required and the key secret — so a registry-driven install asks for all of them.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface EnvironmentVariable {
  name: string;
  description: string;
  isRequired?: boolean;
  isSecret?: boolean;
}

interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    environmentVariables: EnvironmentVariable[];
  }[];
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** The variables the bin's own --help text lists before its "Over HTTP" part (stdio is what the registry installs). */
async function helpVariables(bin: string): Promise<string[]> {
  const { stderr } = await promisify(execFile)(process.execPath, [bin, '--help']);
  // The server's own help text starts after the runner's usage, which names HTTP-only variables.
  const own = stderr.slice(Math.max(0, stderr.search(/^(Environment|Choosing tools):/m)));
  const stdioPart = own.split('Over HTTP:')[0] ?? '';
  return [...new Set(stdioPart.match(/POLYMODAL_[A-Z_]+/g) ?? [])];
}

describe.each(['mcp', 'mcp-meeting', 'mcp-media', 'mcp-speech'])('%s/server.json', (directory) => {
  it('names the package, its version and mcpName, over stdio, with every variable the bin documents', async () => {
    const root = path.join(PACKAGES, directory);
    const manifest = await readJson<{ name: string; version: string; mcpName: string; files: string[] }>(
      path.join(root, 'package.json'),
    );
    const server = await readJson<ServerJson>(path.join(root, 'server.json'));
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/.+\/server\.schema\.json$/,
    );
    expect(server.name).toBe(manifest.mcpName);
    expect(server.version).toBe(manifest.version);
    // The official registry refuses longer descriptions.
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(manifest.files).toContain('server.json');

    expect(server.packages).toHaveLength(1);
    const [npm] = server.packages;
    expect(npm).toMatchObject({
      registryType: 'npm',
      identifier: manifest.name,
      version: manifest.version,
      transport: { type: 'stdio' },
    });
    const variables = new Map(npm?.environmentVariables.map((variable) => [variable.name, variable]));
    expect(variables.get('POLYMODAL_BASE_URL')).toMatchObject({ isRequired: true });
    expect(variables.get('POLYMODAL_API_KEY')).toMatchObject({ isRequired: true, isSecret: true });
    for (const variable of variables.values()) {
      expect(variable.description.length, variable.name).toBeLessThanOrEqual(100);
      // Only the key is a secret: a host hides secrets, and hiding a directory would only confuse.
      expect(variable.isSecret === true, variable.name).toBe(variable.name === 'POLYMODAL_API_KEY');
    }
    const documented = await helpVariables(path.join(root, 'dist', 'index.js'));
    for (const name of documented) expect(variables.has(name), name).toBe(true);
  });
});
