/**
 * docs/hosts.md is copy-pasted into hosts, so every configuration in it must work as written: each JSON and
 * TOML block parses, names a published package whose single bin npx runs (or a bin that exists), sets only
 * variables the server declares in its server.json, includes POLYMODAL_ALLOWED_DIRS, and keeps the key out
 * of the file wherever the host can (VS Code inputs with password, environment references); the Cursor
 * install link carries the same configuration as the Cursor block; and every distinct command in the doc,
 * started from the built bins with the block's variables, lists its tools against the sandbox.
 */
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DOC = path.join(ROOT, 'docs', 'hosts.md');

interface WorkspacePackage {
  name: string;
  directory: string;
  private: boolean;
  bin: Record<string, string>;
  variables: Set<string>;
}

interface Block {
  section: string;
  language: string;
  text: string;
}

interface ServerConfig {
  section: string;
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Codex: variables passed through from the host's environment. */
  passThrough: string[];
}

/** The fenced blocks of a Markdown file, each with the `##` section it sits in. */
function readBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line.startsWith('## ')) section = line.slice(3).trim();
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const body: string[] = [];
    for (index++; index < lines.length && !(lines[index] ?? '').startsWith('```'); index++) {
      body.push(lines[index] ?? '');
    }
    blocks.push({ section, language: fence[1] ?? '', text: body.join('\n') });
  }
  return blocks;
}

/**
 * The TOML the doc uses (tables, strings, string arrays, integers), parsed strictly: anything else fails
 * the test rather than being read wrongly. No TOML parser is among the workspace's dependencies.
 */
function parseToml(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let table = root;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) {
      table = root;
      for (const key of (header[1] ?? '').split('.')) {
        table[key] ??= {};
        table = table[key] as Record<string, unknown>;
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!pair) throw new Error(`unsupported TOML line: ${line}`);
    // Basic strings without escapes, arrays of them and integers read the same in JSON.
    const value = pair[2] ?? '';
    if (!/^("[^"\\]*"|\[("[^"\\]*"(,\s*"[^"\\]*")*)?\]|\d+)$/.test(value)) {
      throw new Error(`unsupported TOML value: ${line}`);
    }
    table[pair[1] ?? ''] = JSON.parse(value);
  }
  return root;
}

/** Every server configuration of a parsed block, whatever the host calls its map. */
function serverConfigs(section: string, parsed: Record<string, unknown>): ServerConfig[] {
  const map = (parsed.mcpServers ?? parsed.servers ?? parsed.mcp_servers) as
    | Record<string, Record<string, unknown>>
    | undefined;
  if (!map) throw new Error(`${section}: a block without mcpServers, servers or mcp_servers`);
  return Object.entries(map).map(([name, config]) => ({
    section,
    name,
    command: config.command as string,
    args: (config.args as string[] | undefined) ?? [],
    env: (config.env as Record<string, string> | undefined) ?? {},
    passThrough: (config.env_vars as string[] | undefined) ?? [],
  }));
}

/** The package npx runs (`npx -y <package> ...`, also behind `cmd /c`) and the arguments after it. */
function npxTarget(config: ServerConfig): { packageName: string; rest: string[] } | undefined {
  const words = [config.command, ...config.args];
  const npx = words.indexOf('npx');
  if (npx === -1) return undefined;
  expect(words[npx + 1], `${config.section}: npx without -y waits for a confirmation no host shows`).toBe(
    '-y',
  );
  return { packageName: words[npx + 2] ?? '', rest: words.slice(npx + 3) };
}

/** Placeholders a host substitutes itself, by host. */
const KEY_REFERENCE = /^(\$\{input:[\w-]+\}|\$\{env:\w+\}|\$\{\w+\}|\$\w+)$/;
const KEY_PLACEHOLDER = '<your key>';
/** Sections whose host cannot reference the key: the doc says so there, and the value is a placeholder. */
const LITERAL_KEY_SECTIONS = new Set(['Claude Desktop', 'Troubleshooting']);

describe('docs/hosts.md', () => {
  let markdown: string;
  let blocks: Block[];
  let packages: Map<string, WorkspacePackage>;
  let configs: ServerConfig[];

  beforeAll(async () => {
    markdown = await readFile(DOC, 'utf8');
    blocks = readBlocks(markdown);
    packages = new Map();
    for (const directory of await readdir(path.join(ROOT, 'packages'))) {
      const folder = path.join(ROOT, 'packages', directory);
      const manifest = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
        bin?: Record<string, string>;
      };
      const serverJson = await readFile(path.join(folder, 'server.json'), 'utf8').catch(() => undefined);
      const variables = new Set<string>(
        serverJson
          ? (
              JSON.parse(serverJson) as { packages: { environmentVariables: { name: string }[] }[] }
            ).packages.flatMap((entry) => entry.environmentVariables.map((variable) => variable.name))
          : [],
      );
      packages.set(manifest.name, {
        name: manifest.name,
        directory: folder,
        private: manifest.private === true,
        bin: manifest.bin ?? {},
        variables,
      });
    }
    configs = blocks.flatMap((block) => {
      if (block.language === 'json') return serverConfigs(block.section, JSON.parse(block.text));
      if (block.language === 'toml') return serverConfigs(block.section, parseToml(block.text));
      return [];
    });
  });

  it('has a parsed configuration for every host it names', () => {
    const sections = new Set(configs.map((config) => config.section));
    for (const host of [
      'Claude Desktop',
      'Claude Code',
      'VS Code',
      'Cursor',
      'Windsurf',
      'Codex',
      'Gemini CLI',
    ]) {
      expect(sections, host).toContain(host);
    }
    expect(blocks.filter((block) => block.language === 'toml')).toHaveLength(1);
  });

  it('starts published packages whose single bin npx runs, or bins that exist', () => {
    const bins = new Set([...packages.values()].flatMap((entry) => Object.keys(entry.bin)));
    for (const config of configs) {
      const target = npxTarget(config);
      if (!target) {
        expect(bins, `${config.section}: ${config.command}`).toContain(config.command);
        continue;
      }
      const entry = packages.get(target.packageName);
      expect(entry, `${config.section}: ${target.packageName} is not a workspace package`).toBeDefined();
      expect(entry?.private, target.packageName).toBe(false);
      // npx runs a package's bin without naming it only when there is exactly one.
      expect(Object.keys(entry?.bin ?? {}), target.packageName).toHaveLength(1);
    }
  });

  it('sets only variables the server declares, always the readable folders, and the key by reference where the host allows', () => {
    for (const config of configs) {
      const entry = packages.get(npxTarget(config)?.packageName ?? '@polymodal/mcp');
      const label = `${config.section}: ${config.name}`;
      const names = [...Object.keys(config.env), ...config.passThrough];
      for (const name of names) expect(entry?.variables, `${label} sets ${name}`).toContain(name);
      for (const name of ['POLYMODAL_BASE_URL', 'POLYMODAL_API_KEY', 'POLYMODAL_ALLOWED_DIRS']) {
        expect(names, label).toContain(name);
      }
      const key = config.env.POLYMODAL_API_KEY;
      if (config.passThrough.includes('POLYMODAL_API_KEY')) {
        expect(key, `${label}: passed through, so not written`).toBeUndefined();
      } else if (LITERAL_KEY_SECTIONS.has(config.section)) {
        expect(key, label).toBe(KEY_PLACEHOLDER);
      } else {
        expect(key, label).toMatch(KEY_REFERENCE);
      }
    }
  });

  it('asks VS Code for the key as a password input', () => {
    const block = blocks.find(
      (candidate) => candidate.section === 'VS Code' && candidate.language === 'json',
    );
    const parsed = JSON.parse(block?.text ?? '{}') as {
      inputs: { id: string; type: string; password?: boolean }[];
      servers: Record<string, { env: Record<string, string> }>;
    };
    for (const server of Object.values(parsed.servers)) {
      const id = /^\$\{input:([\w-]+)\}$/.exec(server.env.POLYMODAL_API_KEY ?? '')?.[1];
      const input = parsed.inputs.find((candidate) => candidate.id === id);
      expect(input).toMatchObject({ type: 'promptString', password: true });
    }
  });

  it('gives the Claude Code command the published package, the readable folders and the key from the shell', () => {
    const command = blocks.find(
      (block) => block.section === 'Claude Code' && block.language === 'bash',
    )?.text;
    const words = (command ?? '').replace(/\\\n/g, ' ').split(/\s+/);
    expect(words.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
    const separator = words.indexOf('--');
    expect(words.slice(separator + 1, separator + 3)).toEqual(['npx', '-y']);
    expect(packages.get(words[separator + 3] ?? '')?.private).toBe(false);
    expect(words).toContain('POLYMODAL_API_KEY="$POLYMODAL_API_KEY"');
    expect(words.some((word) => word.startsWith('POLYMODAL_ALLOWED_DIRS='))).toBe(true);
  });

  it('has a Cursor install link whose base64 config is the Cursor block', () => {
    const link =
      /\(cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?name=([\w-]+)&config=([A-Za-z0-9+/=]+)\)/.exec(
        markdown,
      );
    expect(link).not.toBeNull();
    const [, name, encoded] = link ?? [];
    const decoded = JSON.parse(Buffer.from(encoded ?? '', 'base64').toString('utf8'));
    const block = blocks.find((candidate) => candidate.section === 'Cursor' && candidate.language === 'json');
    const parsed = JSON.parse(block?.text ?? '{}') as { mcpServers: Record<string, unknown> };
    expect(decoded).toEqual(parsed.mcpServers[name ?? '']);
  });

  it('names packages and bins that exist, paired as in package.json', () => {
    for (const [, name] of markdown.matchAll(/`(@polymodal\/[\w-]+)`/g)) {
      expect(packages.has(name ?? ''), name).toBe(true);
    }
    const bins = new Map(
      [...packages.values()].flatMap((entry) => Object.keys(entry.bin).map((bin) => [bin, entry])),
    );
    for (const [, bin] of markdown.matchAll(/`(polymodal-[\w-]+)`/g))
      expect(bins.has(bin ?? ''), bin).toBe(true);
    const rows = [...markdown.matchAll(/^\| `(@polymodal\/[\w-]+)` \| `([\w-]+)` \|/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const [, name, bin] of rows) expect(Object.keys(packages.get(name ?? '')?.bin ?? {})).toEqual([bin]);
  });

  it('is linked from the root README', async () => {
    expect(await readFile(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/hosts.md)');
  });

  describe('every distinct command, started from the built bins', () => {
    let sandbox: Sandbox;
    let root: string;

    beforeAll(async () => {
      sandbox = await startSandbox({ speed: 100 });
      root = await mkdtemp(path.join(os.tmpdir(), 'hosts-doc-'));
    });

    afterAll(async () => {
      await sandbox?.close();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('serves tools with the variables and arguments of the doc', async () => {
      const seen = new Set<string>();
      for (const config of configs) {
        const target = npxTarget(config) ?? { packageName: '@polymodal/mcp', rest: config.args };
        const key = JSON.stringify([target.packageName, target.rest, Object.keys(config.env).sort()]);
        if (seen.has(key)) continue;
        seen.add(key);
        const entry = packages.get(target.packageName);
        const bin = path.join(entry?.directory ?? '', Object.values(entry?.bin ?? {})[0] ?? '');
        await access(bin).catch(() => {
          throw new Error(`${bin} is missing: build first (pnpm turbo run build --filter=@polymodal/mcp...)`);
        });
        // The doc's values are the reader's (their address, key and folders); here they point at the sandbox.
        const local: Record<string, string> = {
          POLYMODAL_BASE_URL: sandbox.url,
          POLYMODAL_API_KEY: sandbox.apiKey,
          POLYMODAL_ALLOWED_DIRS: root,
          POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
        };
        const env = Object.fromEntries(
          Object.keys(config.env).map((name) => [name, local[name] ?? config.env[name]]),
        );
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, ...target.rest],
          env: {
            PATH: process.env.PATH ?? '',
            POLYMODAL_STATE_DIR: path.join(root, 'state'),
            ...env,
            ...(config.passThrough.includes('POLYMODAL_API_KEY')
              ? { POLYMODAL_API_KEY: sandbox.apiKey }
              : {}),
          },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'hosts-doc-test', version: '1.0.0' });
        try {
          await client.connect(transport);
          const { tools } = await client.listTools();
          expect(
            tools.map((tool) => tool.name),
            `${config.section}: ${key}`,
          ).toContain('list_jobs');
        } finally {
          await client.close();
        }
      }
      expect(seen.size).toBeGreaterThanOrEqual(2);
    }, 60_000);
  });
});
