/**
 * tsup configuration of a server package (mcp-meeting, mcp-media, mcp-speech, mcp): two builds into dist/.
 *
 * - The library entry, `dist/server.js` (+ types), as before: the package's own code only, its dependencies
 *   imported from node_modules, so that an embedder shares one copy of core, mcp-common and the SDK.
 * - The bin as a code-split bundle (issue 14: a host spawns every configured server at launch, and the bin
 *   used to load about 500 module files from node_modules before answering `initialize`): `dist/index.js`
 *   is a launcher (server-bin-launcher.mjs: Node's code cache on, then `dist/main.js`, the bundled
 *   `src/index.ts`, which stays one level below the package root so that `../package.json` still finds
 *   the version). Everything is bundled: the workspace packages from their TypeScript sources, the SDK,
 *   zod, undici and the rest (pure JavaScript; only pg's optional native binding stays out), so a start over
 *   stdio reads a handful of files. What only one transport or one tool needs sits behind an `import()` and
 *   becomes its own chunk under dist/bin/, loaded on first use: the Streamable HTTP server with its
 *   authentication, tenants and metrics, PostgreSQL, `ws`, `music-metadata`.
 *
 * The workspace sources are marked free of side effects (they are: no module of theirs is imported for its
 * side effects alone), so that esbuild drops what a barrel re-exports but the bin never uses, instead of
 * evaluating it at start. Licence comments (`/*! … *\/`, `@license`) of bundled code are kept at the end of
 * each output file (esbuild's `legalComments: 'eof'`); the bundled packages stay dependencies of the
 * package, so their LICENSE files are installed beside it too.
 *
 * The store-postgres migrations are read from `../migrations/` next to the code that applies them, which
 * in a bin is a chunk in dist/bin/: they are copied to dist/migrations/.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildViews } from './build-views.mjs';

const PACKAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'packages');
/** Workspace packages bundled from source: `@polymodal/<folder>[/<entry>]` → packages/<folder>/src/<entry>.ts */
const WORKSPACE =
  /^@polymodal\/(core|mcp-common|store-postgres|mcp-meeting|mcp-media|mcp-speech)(?:\/(.+))?$/;
/** The source of each package's root export (a server package's root is its library entry, not its bin). */
const ROOT_ENTRY = {
  core: 'index',
  'mcp-common': 'index',
  'store-postgres': 'index',
  'mcp-meeting': 'server',
  'mcp-media': 'server',
  'mcp-speech': 'server',
};
const WORKSPACE_SOURCE = new RegExp(
  `^${escapeRegExp(PACKAGES)}[\\\\/](?:core|mcp-common|store-postgres|mcp-meeting|mcp-media|mcp-speech|mcp)[\\\\/]src[\\\\/]`,
);
const LAUNCHER = fileURLToPath(new URL('./server-bin-launcher.mjs', import.meta.url));
const BIN_OUTPUTS = ['index.js', 'main.js', 'bin/**', 'migrations/**', 'tool-list.json', 'views/**'];
/** Written by `tsc -b` (the root's `build:types`, at the same time as tsup): no tsup build cleans them. */
export const TYPES_OUTPUTS = ['**/*.d.ts', 'tsconfig.build.tsbuildinfo'];

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** esbuild plugin: workspace packages from their sources, and every workspace source side-effect free. */
const workspaceSources = {
  name: 'polymodal-workspace-sources',
  setup(build) {
    // The launcher's `import('./main.js')` is the bundled server beside it, not a file to bundle.
    build.onResolve({ filter: /^\.\/main\.js$/ }, (args) =>
      args.importer === LAUNCHER ? { path: args.path, external: true } : undefined,
    );
    build.onResolve({ filter: WORKSPACE }, (args) => {
      const [, folder, entry] = WORKSPACE.exec(args.path);
      return {
        path: path.join(PACKAGES, folder, 'src', `${entry ?? ROOT_ENTRY[folder]}.ts`),
        sideEffects: false,
      };
    });
    // Relative imports inside the sources: resolved as esbuild would (`./x.js` is `./x.ts`), then marked.
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData?.workspaceSources || !WORKSPACE_SOURCE.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, {
        importer: args.importer,
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: { workspaceSources: true },
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * The servers read their version from `../package.json`, which is the package root only from dist/ itself:
 * from a chunk in dist/bin/ it would be missing, and the bin would fail at start. esbuild puts code in a
 * chunk when an `import()` shares it; should that ever happen to a server module, the build fails here.
 */
async function refusePackageJsonInChunks() {
  for (const name of await readdir(path.join('dist', 'bin'))) {
    const text = await readFile(path.join('dist', 'bin', name), 'utf8');
    if (text.includes('"../package.json"')) {
      throw new Error(
        `dist/bin/${name} reads ../package.json, which is not the package root from dist/bin/: keep the module that reads it out of code shared with an import().`,
      );
    }
  }
}

/**
 * dist/tool-list.json: the fresh bin's own `tools/list` answer (with its server's name and version), which the
 * bin serves instead of converting its tools' zod schemas at the first `tools/list` when the tools it lists
 * then are described alike (mcp-common's precomputed-tool-list.ts). Taken from the bin over stdio, with no
 * file present (this build's clean removed it), so it is exactly what the SDK answers. Configuration only
 * to start: the platform address is a closed loopback port and nothing is called.
 */
async function writeToolList() {
  const scratch = await mkdtemp(path.join(tmpdir(), 'polymodal-tool-list-'));
  try {
    const child = spawn(process.execPath, [path.join('dist', 'index.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
        POLYMODAL_API_KEY: 'build-time-tool-list',
        POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
        POLYMODAL_ALLOWED_DIRS: scratch,
        POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
        POLYMODAL_LOG_LEVEL: 'error',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const answers = new Map();
    let buffered = '';
    const done = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the bin did not list its tools within 20 s')), 20_000);
      child.once('exit', (code) => reject(new Error(`the bin exited (${code}) before listing its tools`)));
      child.stdout.on('data', (chunk) => {
        buffered += chunk.toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const message = JSON.parse(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
          if (message.id !== undefined) answers.set(message.id, message);
          newline = buffered.indexOf('\n');
        }
        if (answers.has(2)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'build', version: '0' },
      },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    try {
      await done;
    } finally {
      child.kill();
    }
    const { name, version } = answers.get(1)?.result?.serverInfo ?? {};
    const tools = answers.get(2)?.result?.tools;
    if (typeof name !== 'string' || typeof version !== 'string' || !Array.isArray(tools)) {
      throw new Error('the bin did not answer initialize and tools/list as expected');
    }
    await writeFile(
      path.join('dist', 'tool-list.json'),
      `${JSON.stringify({ server: { name, version }, tools })}\n`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * esbuild plugin: zod's `locales` namespace (its error messages in some fifty languages, about 290 KiB that
 * every start parsed) as an empty one. The servers only ever use English, which zod installs from
 * `locales/en.js` directly; nothing here calls `z.config()` with another locale. A module that imported a
 * locale by name from the namespace would fail the build, not the server.
 */
const zodEnglishOnly = {
  name: 'polymodal-zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'polymodal-zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'polymodal-zod-english-only' }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

/**
 * esbuild plugin: the SDK server's static import of its Ajv validator (Ajv, ajv-formats and fast-uri, about
 * 190 KiB evaluated at every start) as a class that refuses to be built. Every Polymodal server passes its
 * own validator (mcp-common's LazyJsonSchemaValidator), which imports the SDK's Ajv provider with `import()`
 * before an elicitation is sent, so the SDK's default is never constructed; if it ever were, the call would
 * fail with this message rather than skip a check.
 */
const sdkAjvOnDemand = {
  name: 'polymodal-sdk-ajv-on-demand',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) =>
      /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(args.importer)
        ? { path: 'sdk-ajv-provider', namespace: 'polymodal-sdk-ajv-on-demand' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'polymodal-sdk-ajv-on-demand' }, () => ({
      contents: `export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('This server was bundled without the SDK default JSON Schema validator: pass jsonSchemaValidator (mcp-common LazyJsonSchemaValidator).');
  }
}`,
      loader: 'js',
    }));
  },
};

/**
 * esbuild plugin: the SDK's support for zod 3 schemas (zod/v3 and zod-to-json-schema, about 100 KiB parsed
 * and evaluated at every start) as stubs that refuse. The SDK takes that path only for a schema made with zod
 * 3; every schema of these servers is zod 4 (the SDK's `zod/v4-mini` path), and the bin tests list and call
 * the tools of each bundle, so a zod 3 schema would fail there with this message, not in a user's host.
 */
const sdkWithoutZod3 = {
  name: 'polymodal-sdk-without-zod3',
  setup(build) {
    const sdkServer =
      /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]zod-(?:json-schema-)?compat\.js$/;
    build.onResolve({ filter: /^(?:zod\/v3|zod-to-json-schema)$/ }, (args) =>
      sdkServer.test(args.importer)
        ? { path: args.path, namespace: 'polymodal-sdk-without-zod3' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'polymodal-sdk-without-zod3' }, (args) => {
      const refuse = `throw new Error('This server was bundled for zod 4 schemas only (${args.path} is left out).');`;
      return {
        contents:
          args.path === 'zod/v3'
            ? `export function object() { ${refuse} }`
            : `export function zodToJsonSchema() { ${refuse} }`,
        loader: 'js',
      };
    });
  },
};

/**
 * esbuild plugin: undici's HTTP/2 client (and with it `node:http2`, 7 ms of the first request on Node 20)
 * loaded by the first connection that negotiates HTTP/2, rather than with undici. Core never allows one
 * (`allowH2` is never set), so a server never loads it. The replaced text is matched exactly: an undici
 * release that changes it fails the build here, not a server.
 */
const undiciHttp2OnUse = {
  name: 'polymodal-undici-http2-on-use',
  setup(build) {
    const from = "const connectH2 = require('./client-h2.js')";
    const to = "const connectH2 = (client, socket) => require('./client-h2.js')(client, socket)";
    build.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      if (contents.split(from).length !== 2) {
        throw new Error(
          `${args.path}: expected \`${from}\` once (undici changed: review scripts/tsup-server-package.mjs)`,
        );
      }
      return { contents: contents.replace(from, to), loader: 'js' };
    });
  },
};

/**
 * The two builds of a server package; `entry` is the bin's source, `library` the library entry's, `views` the
 * MCP Apps view folders its tools name (built into dist/views/, which both the library and the bin read).
 */
export function serverPackageConfig({ entry = 'src/index.ts', library = 'src/server.ts', views = [] } = {}) {
  return [
    {
      entry: [library],
      format: ['esm'],
      // Declarations come from `tsc -b` (the root's `build:types`).
      dts: false,
      sourcemap: true,
      // Both builds run at once into dist/: each cleans only its own files.
      clean: [...BIN_OUTPUTS, ...TYPES_OUTPUTS].map((pattern) => `!${pattern}`),
      target: 'node20',
    },
    {
      entry: { index: LAUNCHER, main: entry },
      format: ['esm'],
      platform: 'node',
      target: 'node20',
      splitting: true,
      // Whitespace and syntax minified (about 4 MiB less resident memory: V8 keeps the source of every
      // function it may compile later), names kept, so that a stack trace in a host's log still names the
      // functions. No map is shipped for the bundle (it would hold the SDK's and zod's sources again).
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: false,
      dts: false,
      clean: ['server.*', ...TYPES_OUTPUTS].map((pattern) => `!${pattern}`),
      noExternal: [/./],
      // pg's optional native binding; pg falls back to its JavaScript client without it.
      external: ['pg-native'],
      // Bundled CommonJS (undici, pg, prom-client, ws) calls `require` for Node's built-in modules.
      banner: {
        js: "import { createRequire as __polymodalBinCreateRequire } from 'node:module'; const require = __polymodalBinCreateRequire(import.meta.url);",
      },
      esbuildPlugins: [workspaceSources, zodEnglishOnly, sdkAjvOnDemand, sdkWithoutZod3, undiciHttp2OnUse],
      esbuildOptions(options) {
        options.chunkNames = 'bin/[name]-[hash]';
        options.legalComments = 'eof';
      },
      async onSuccess() {
        await cp(path.join(PACKAGES, 'store-postgres', 'migrations'), path.join('dist', 'migrations'), {
          recursive: true,
        });
        await refusePackageJsonInChunks();
        await buildViews(views, path.join('dist', 'views'));
        await writeToolList();
      },
    },
  ];
}
