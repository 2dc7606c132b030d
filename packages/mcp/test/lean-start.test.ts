/**
 * What a server bin loads at start (hosts spawn every configured server at launch). Over stdio, a bin must not
 * load the Streamable HTTP side (the HTTP service with its guards and sessions, the SDK's Node adapter and
 * the hono server under it, jose for OAuth tokens, prom-client for /metrics): those sit behind an `import()`
 * taken only with `--http`. (SDK 2.x's main entry, which every server needs for `McpServer`, also defines
 * its web-standard HTTP handler: that one is one module with the rest of the SDK and is loaded by any start.) Each bin is
 * spawned with a loader hook that records every module file it loads; the files' code is then searched
 * for marks of those packages. The same search over a start with `--http` finds all of them, which shows
 * that the marks are the right ones.
 */
import { spawn } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const PACKAGES = path.resolve(here, '..', '..');
const RECORDER = path.join(here, 'support', 'record-loaded-modules.mjs');
const BINS = ['mcp', 'mcp-meeting', 'mcp-media', 'mcp-speech'].map((folder) => ({
  folder,
  bin: path.join(PACKAGES, folder, 'dist', 'index.js'),
}));

/** Code only the HTTP side needs: a mark in the code of each, and its package's folder name. */
const HTTP_ONLY = [
  {
    name: 'the HTTP service',
    mark: 'this server is stateless; send each JSON-RPC message as a POST',
    file: /[\\/]runners[\\/]run-http-server/,
  },
  {
    name: "the SDK's Node HTTP adapter",
    mark: 'NodeStreamableHTTPServerTransport',
    file: /[\\/]@modelcontextprotocol[\\/]node[\\/]|[\\/]@hono[\\/]/,
  },
  { name: 'jose', mark: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', file: /[\\/]jose[\\/]/ },
  { name: 'prom-client', mark: 'process_cpu_user_seconds_total', file: /[\\/]prom-client[\\/]/ },
];

/**
 * Code a start over stdio does not need, loaded by the first call that does (an elicitation, a write to
 * the job ledger, a request to the platform, any tool call for the clients): a mark in the code of each. The bundle must hold each mark
 * (in a chunk of its own), and no file loaded at start may.
 */
const FIRST_USE = [
  { name: 'Ajv (checks elicitation answers)', mark: 'strictTuples' },
  { name: 'proper-lockfile (locks ledger entries)', mark: 'ECOMPROMISED' },
  { name: "undici's connector and errors (requests)", mark: 'UND_ERR_CONNECT_TIMEOUT' },
  {
    name: 'the platform clients (built by the first tool call)',
    mark: 'everyone waiting for it had stopped',
  },
  { name: "the contracts' zod schemas", mark: 'MeetingJobEnvelope' },
];
/** Node modules only those calls need (uploads, downloads, ffmpeg, hashes), never imported at start. */
const FIRST_USE_BUILTINS = ['http', 'https', 'net', 'tls', 'child_process', 'crypto', 'zlib', 'dns'];

let root: string;

beforeAll(async () => {
  for (const { bin } of BINS) {
    await access(bin).catch(() => {
      throw new Error(`${bin} is missing: build first (pnpm turbo run build --filter=@polymodal/mcp...)`);
    });
  }
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-lean-start-'));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function serverEnv(record: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    // Never called at start: initialize and tools/list do not reach the platform.
    POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    POLYMODAL_API_KEY: 'lean-start-test-key',
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_TEST_LOADED_MODULES: record,
  };
}

/** Every URL the process loaded through the module loader, built-in modules (`node:…`) included. */
async function loadedUrls(record: string): Promise<string[]> {
  return [...new Set((await readFile(record, 'utf8')).split('\n').filter((url) => url !== ''))];
}

/** The files the process loaded, with their code. */
async function loadedModules(record: string): Promise<{ file: string; code: string }[]> {
  const urls = await loadedUrls(record);
  return Promise.all(
    urls
      .filter((url) => url.startsWith('file:'))
      .map(async (url) => {
        const file = fileURLToPath(url);
        return { file, code: await readFile(file, 'utf8') };
      }),
  );
}

function httpOnlyLoaded(modules: { file: string; code: string }[]): string[] {
  return HTTP_ONLY.filter(({ mark, file }) =>
    modules.some((module) => file.test(module.file) || module.code.includes(mark)),
  ).map(({ name }) => name);
}

describe('a server bin started over stdio', () => {
  it.each(BINS)('$folder loads a few bundled files and nothing of the HTTP side', async ({ folder, bin }) => {
    const record = path.join(root, `${folder}-stdio.txt`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', RECORDER, bin],
      env: serverEnv(record),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'lean-start-test', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.length).toBeGreaterThan(0);

    const modules = await loadedModules(record);
    const files = modules.map((module) => module.file);
    // The bin and its bundle's chunks, all inside the package: nothing read from node_modules.
    expect(files).toContain(bin);
    expect(files.filter((file) => !file.startsWith(path.join(PACKAGES, folder, 'dist')))).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(10);
    expect(httpOnlyLoaded(modules)).toEqual([]);

    const bundle = await Promise.all(
      (await readdir(path.join(PACKAGES, folder, 'dist', 'bin'))).map((name) =>
        readFile(path.join(PACKAGES, folder, 'dist', 'bin', name), 'utf8'),
      ),
    );
    for (const { name, mark } of FIRST_USE) {
      expect(
        bundle.some((code) => code.includes(mark)),
        `${name} is in the bundle`,
      ).toBe(true);
    }
    expect(
      FIRST_USE.filter(({ mark }) => modules.some((module) => module.code.includes(mark))).map(
        ({ name }) => name,
      ),
    ).toEqual([]);
    const builtins = (await loadedUrls(record))
      .filter((url) => url.startsWith('node:'))
      .map((url) => url.slice('node:'.length));
    expect(builtins).toContain('fs');
    expect(builtins.filter((name) => FIRST_USE_BUILTINS.includes(name))).toEqual([]);
  });
});

describe('the combined bin started with --http', () => {
  it('loads the HTTP transport, jose and prom-client (the marks the stdio test looks for)', async () => {
    const record = path.join(root, 'mcp-http.txt');
    const bin = BINS[0]?.bin ?? '';
    const child = spawn(process.execPath, ['--import', RECORDER, bin, '--http', '--port', '0'], {
      env: serverEnv(record),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          if (stderr.includes('MCP Streamable HTTP endpoint at')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before serving: ${stderr}`)));
      });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(httpOnlyLoaded(await loadedModules(record))).toEqual(HTTP_ONLY.map(({ name }) => name));
  });
});
