#!/usr/bin/env node
/**
 * `pnpm bundles`: an MCPB bundle (Claude Desktop's one-click install) for each server and the combined
 * one, in dist-bundles/. For each: the built server and every runtime dependency bundled by esbuild into
 * one file (about 2 MB instead of a node_modules tree of thousands of files; nothing to install, no native
 * module), the entry wrapper (bundles/entry.js), a manifest.json whose tools come from the server's own
 * tools/list, `mcpb validate`, `mcpb pack`, and then the proof that it works: the .mcpb unpacked into a
 * temporary directory, its mcp_config resolved by the MCPB library's own substitution (what the host does)
 * with the user's settings, the server started over stdio against the sandbox, tools/list compared with
 * the manifest, list_jobs and a call that reaches the sandbox (for meetings, a real summary of a recording
 * in the second of two chosen folders, so the folder list arrives whole). The bundle's icon is the server's
 * icon.svg rendered to a 512×512 PNG (what Claude Desktop shows; it reads only local PNG icons) with resvg, a
 * well-kept SVG renderer shipped as prebuilt binaries (no install script, no system library).
 *
 * `node scripts/build-bundles.mjs --no-build` skips the turbo build when dist/ is already built.
 */
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Resvg } from '@resvg/resvg-js';
import {
  connectStdio,
  exerciseServer,
  log,
  ROOT,
  run,
  seconds,
  startSandboxProcess,
  withTimeout,
} from './smoke-helpers.mjs';

const OUT = path.join(ROOT, 'dist-bundles');
const MCPB = path.join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'mcpb.cmd' : 'mcpb');
const ENTRY_TEMPLATE = path.join(ROOT, 'bundles', 'entry.js');
// The esbuild that tsup (a root devDependency) runs on, rather than a second copy.
const esbuild = createRequire(fileURLToPath(import.meta.resolve('tsup')))('esbuild');

/** One bundle per server; `outputs` when the server writes files (POLYMODAL_OUTPUT_DIR). */
const BUNDLES = [
  { directory: 'mcp-meeting', outputs: true },
  { directory: 'mcp-media', outputs: true },
  { directory: 'mcp-speech', outputs: false },
  { directory: 'mcp', outputs: true },
];

/** The bundle's icon: 512×512, the size MCPB hosts scale down from. */
const ICON_SIZE = 512;

/** icon.svg of the package → icon.png in the bundle. */
async function renderIcon(packageDirectory, directory) {
  const svg = await readFile(path.join(packageDirectory, 'icon.svg'));
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: ICON_SIZE } }).render().asPng();
  await writeFile(path.join(directory, 'icon.png'), png);
}

/** Width and height from a PNG's header (the IHDR chunk right after the signature), or undefined. */
function pngSize(bytes) {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature)) return undefined;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The settings a user fills in when installing; their text follows each server's server.json. */
function userConfig(bundle, environment) {
  const describe = (name, fallback) =>
    environment.find((item) => item.name === name)?.description ?? fallback;
  return {
    api_key: {
      type: 'string',
      title: 'Polymodal API key',
      description: 'Your Polymodal API key. Kept in the operating system keychain; never logged.',
      sensitive: true,
      required: true,
    },
    base_url: {
      type: 'string',
      title: 'Platform address',
      description: `${describe('POLYMODAL_BASE_URL', 'Address of the Polymodal platform')}, e.g. https://platform.example.com`,
      required: true,
    },
    allowed_directories: {
      type: 'directory',
      title: 'Readable folders',
      description: `${describe('POLYMODAL_ALLOWED_DIRS', 'Folders files may be read from')}. Nothing else on disk is readable.`,
      multiple: true,
      required: false,
      default: [],
    },
    ...(bundle.outputs
      ? {
          output_directory: {
            type: 'directory',
            title: 'Output folder',
            description: `${describe('POLYMODAL_OUTPUT_DIR', 'Folder outputs are saved to')}. Empty: the Polymodal state folder.`,
            required: false,
          },
        }
      : {}),
  };
}

/** `${name}`, the placeholder syntax an MCPB host substitutes in mcp_config. */
function hostVariable(name) {
  return `\${${name}}`;
}

function mcpConfig(bundle) {
  return {
    command: 'node',
    // A list setting expands into one argument per folder only as a whole args item (see bundles/entry.js).
    args: [`${hostVariable('__dirname')}/server/entry.js`, hostVariable('user_config.allowed_directories')],
    env: {
      POLYMODAL_BASE_URL: hostVariable('user_config.base_url'),
      POLYMODAL_API_KEY: hostVariable('user_config.api_key'),
      ...(bundle.outputs ? { POLYMODAL_OUTPUT_DIR: hostVariable('user_config.output_directory') } : {}),
    },
  };
}

/** Server code and dependencies in one ESM file; CommonJS dependencies get a real `require`. */
async function bundleServer(packageDirectory, serverDirectory) {
  await esbuild.build({
    entryPoints: [path.join(packageDirectory, 'dist', 'index.js')],
    outfile: path.join(serverDirectory, 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Names kept: a stack trace in the host's log stays readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'external',
    // pg's optional native binding; pg falls back to its JavaScript client without it.
    external: ['pg-native'],
    banner: {
      js: "import { createRequire as __polymodalCreateRequire } from 'node:module'; const require = __polymodalCreateRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  await copyFile(ENTRY_TEMPLATE, path.join(serverDirectory, 'entry.js'));
  // The MCP Apps views the build wrote, where the bundled code looks for them (`./views/`); the folder also
  // holds the library's declaration files, which a bundle does not need.
  await cp(path.join(packageDirectory, 'dist', 'views'), path.join(serverDirectory, 'views'), {
    recursive: true,
    filter: (source) => !source.endsWith('.d.ts'),
  }).catch((error) => {
    if (error.code !== 'ENOENT') throw error;
  });
  // The tools/list answer its build wrote, beside the code that looks for it (`./tool-list.json`).
  await copyFile(
    path.join(packageDirectory, 'dist', 'tool-list.json'),
    path.join(serverDirectory, 'tool-list.json'),
  );
}

/** The tools as the server lists them (names and descriptions for the manifest, never hand-copied). */
async function listTools(bundleDirectory, sandbox, label) {
  const connection = await connectStdio({
    command: process.execPath,
    args: [path.join(bundleDirectory, 'server', 'entry.js')],
    env: { PATH: process.env.PATH ?? '', POLYMODAL_BASE_URL: sandbox.url, POLYMODAL_API_KEY: sandbox.apiKey },
    label,
  });
  try {
    return connection.tools.map((tool) => ({ name: tool.name, description: tool.description ?? '' }));
  } finally {
    await connection.close();
  }
}

async function buildBundle(bundle, sandbox) {
  const start = performance.now();
  const packageDirectory = path.join(ROOT, 'packages', bundle.directory);
  const pkg = JSON.parse(await readFile(path.join(packageDirectory, 'package.json'), 'utf8'));
  const serverJson = JSON.parse(await readFile(path.join(packageDirectory, 'server.json'), 'utf8'));
  const bin = Object.keys(pkg.bin)[0];
  const directory = path.join(OUT, bin);
  await rm(directory, { recursive: true, force: true });
  await mkdir(path.join(directory, 'server'), { recursive: true });
  await bundleServer(packageDirectory, path.join(directory, 'server'));
  // The server reads its version from ../package.json; "type": "module" makes the .js files ESM.
  await writeFile(
    path.join(directory, 'package.json'),
    `${JSON.stringify({ name: bin, version: pkg.version, private: true, type: 'module', license: pkg.license }, null, 2)}\n`,
  );
  await copyFile(path.join(packageDirectory, 'LICENSE'), path.join(directory, 'LICENSE'));
  await copyFile(path.join(packageDirectory, 'README.md'), path.join(directory, 'README.md'));
  await renderIcon(packageDirectory, directory);

  const environment = serverJson.packages?.[0]?.environmentVariables ?? [];
  const manifest = {
    manifest_version: '0.3',
    name: bin,
    display_name: serverJson.title,
    version: pkg.version,
    description: serverJson.description,
    long_description: `${pkg.description} Installing it asks for your API key (kept in the keychain), the platform address, the folders files may be read from${bundle.outputs ? ' and where outputs are saved' : ''}.`,
    author: { name: pkg.author },
    repository: { type: 'git', url: serverJson.repository.url },
    homepage: pkg.homepage,
    documentation: 'https://github.com/polymodal/polymodal-mcp/blob/main/docs/hosts.md',
    support: pkg.bugs.url,
    icon: 'icon.png',
    icons: [{ src: 'icon.png', size: `${ICON_SIZE}x${ICON_SIZE}` }],
    server: { type: 'node', entry_point: 'server/entry.js', mcp_config: mcpConfig(bundle) },
    tools: await listTools(directory, sandbox, `${bin} (tools for the manifest)`),
    tools_generated: false,
    keywords: pkg.keywords,
    license: pkg.license,
    compatibility: {
      platforms: ['darwin', 'win32', 'linux'],
      runtimes: { node: pkg.engines.node },
    },
    user_config: userConfig(bundle, environment),
  };
  const manifestPath = path.join(directory, 'manifest.json');
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await run(MCPB, ['validate', manifestPath], { timeoutMs: 60_000 });
  const archive = path.join(OUT, `${bin}.mcpb`);
  await rm(archive, { force: true });
  await run(MCPB, ['pack', directory, archive], { timeoutMs: 120_000 });
  const size = (await stat(archive)).size;
  log(`${bin}.mcpb: ${manifest.tools.length} tools, ${(size / 1024).toFixed(0)} KiB (${seconds(start)} s)`);
  return { bin, archive, manifest };
}

/** Unpack as a host does, resolve mcp_config with the MCPB library, run it against the sandbox. */
async function proveBundle({ bin, archive, manifest }, sandbox, work) {
  const start = performance.now();
  const extensionPath = await mkdtemp(path.join(work, `${bin}-`));
  await run(MCPB, ['unpack', archive, extensionPath], { timeoutMs: 60_000 });
  const unpacked = JSON.parse(await readFile(path.join(extensionPath, 'manifest.json'), 'utf8'));
  const icon = pngSize(await readFile(path.join(extensionPath, unpacked.icon)));
  if (icon?.width !== ICON_SIZE || icon.height !== ICON_SIZE) {
    throw new Error(`${bin}.mcpb: ${unpacked.icon} is not a ${ICON_SIZE}×${ICON_SIZE} PNG`);
  }
  const first = path.join(extensionPath, 'folder one');
  const second = path.join(extensionPath, 'folder two');
  // A folder whose name holds path.delimiter cannot travel in POLYMODAL_ALLOWED_DIRS: the wrapper skips it
  // (with a warning) instead of letting it be read as two folders.
  const odd = path.join(extensionPath, `odd${path.delimiter}name`);
  await mkdir(first, { recursive: true });
  await mkdir(second, { recursive: true });
  await mkdir(odd, { recursive: true });
  const recording = path.join(second, 'standup.wav');
  const { writeMeetingRecording } = await import(
    pathToFileURL(path.join(ROOT, 'packages', 'sandbox', 'dist', 'index.js')).href
  );
  await writeMeetingRecording(recording, {
    script: [
      { speaker: 'Alice', text: 'We decided to ship the beta on Friday after the final review.' },
      { speaker: 'Bob', text: 'I will prepare the release notes by Thursday.' },
    ],
  });

  const settings = [
    {
      label: `${bin}.mcpb with every setting`,
      values: {
        api_key: sandbox.apiKey,
        base_url: sandbox.url,
        allowed_directories: [first, odd, second],
        ...(unpacked.user_config.output_directory
          ? { output_directory: path.join(extensionPath, 'out') }
          : {}),
      },
      exercise: true,
    },
    // Optional settings left empty: the server must start, without a placeholder taken for a folder.
    {
      label: `${bin}.mcpb with the required settings only`,
      values: { api_key: sandbox.apiKey, base_url: sandbox.url },
    },
  ];
  for (const setting of settings) {
    const config = await getMcpConfigForManifest({
      manifest: unpacked,
      extensionPath,
      systemDirs: { HOME: os.homedir() },
      userConfig: setting.values,
      pathSeparator: path.sep,
    });
    if (!config) throw new Error(`${setting.label}: the MCPB library found the configuration incomplete`);
    const connection = await connectStdio({
      command: config.command,
      args: config.args,
      label: setting.label,
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_STATE_DIR: path.join(extensionPath, 'state'),
        ...config.env,
      },
    });
    try {
      const listed = connection.tools.map((tool) => tool.name).join(',');
      const declared = manifest.tools.map((tool) => tool.name).join(',');
      if (listed !== declared)
        throw new Error(`${setting.label}: tools/list (${listed}) differs from the manifest (${declared})`);
      if (setting.exercise) {
        const outcome = await exerciseServer({ connection, sandbox, label: setting.label, recording });
        if (!connection.stderr().includes('skipped the folder')) {
          throw new Error(`${setting.label}: no warning for the folder named with "${path.delimiter}"`);
        }
        log(`  ${setting.label}: list_jobs + ${outcome.reached}`);
      } else {
        await connection.call('list_jobs', {});
        log(`  ${setting.label}: starts, list_jobs`);
      }
    } finally {
      await connection.close();
    }
  }
  log(`  proved in ${seconds(start)} s`);
}

async function main() {
  const start = performance.now();
  // --no-build: the packages' dist/ is already built (CI runs the build before this script).
  if (!process.argv.includes('--no-build')) {
    const filters = ['--filter=@polymodal/mcp...', '--filter=@polymodal/sandbox...'];
    await run('pnpm', ['exec', 'turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], {
      timeoutMs: 300_000,
    });
    log(`built the servers (${seconds(start)} s)`);
  }
  await mkdir(OUT, { recursive: true });
  const work = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bundles-'));
  const sandbox = await startSandboxProcess({
    node: process.execPath,
    cli: path.join(ROOT, 'packages', 'sandbox', 'dist', 'cli.js'),
  });
  try {
    for (const bundle of BUNDLES) {
      const built = await buildBundle(bundle, sandbox);
      await withTimeout(proveBundle(built, sandbox, work), 120_000, `proving ${built.bin}.mcpb`);
    }
  } finally {
    await sandbox.close();
    await rm(work, { recursive: true, force: true });
  }
  log(`${BUNDLES.length} bundles built, validated, packed and proved in ${seconds(start)} s: ${OUT}`);
}

main().catch((error) => {
  process.stderr.write(`bundles FAILED: ${error.stack ?? error.message ?? error}\n`);
  process.exit(1);
});
