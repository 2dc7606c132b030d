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
 * esbuild plugin: the SDK server's default JSON Schema validator (Ajv with ajv-formats and fast-uri, bundled
 * into the SDK's `ajvProvider-*.mjs`, about 210 KiB evaluated at every start) as a class that refuses to be
 * built. The SDK reaches it through its `@modelcontextprotocol/server/_shims` module (for Node,
 * dist/shimsNode.mjs), which also gives the stdio transport `node:process`. Every Polymodal server passes its
 * own validator (mcp-common's LazyJsonSchemaValidator), which imports the SDK's Ajv provider
 * (`@modelcontextprotocol/server/validators/ajv`, its own chunk) with `import()` before an elicitation is
 * sent, so the SDK's default is never constructed; if it ever were, the call would fail with this message
 * rather than skip a check. The shim is matched exactly: an SDK release that changes what it exports fails
 * the build here, not a server.
 */
const sdkAjvOnDemand = {
  name: 'polymodal-sdk-ajv-on-demand',
  setup(build) {
    const shim =
      /^import \{ [A-Za-z_$][\w$]* as AjvJsonSchemaValidator \} from "\.\/ajvProvider-[\w-]+\.mjs";\nimport process from "node:process";\n\nexport \{ AjvJsonSchemaValidator as DefaultJsonSchemaValidator, process \};\s*$/;
    let replaced = false;
    build.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]server[\\/]dist[\\/]shimsNode\.mjs$/ },
      async (args) => {
        replaced = true;
        const contents = await readFile(args.path, 'utf8');
        if (!shim.test(contents)) {
          throw new Error(
            `${args.path}: expected the shim to export only the Ajv DefaultJsonSchemaValidator and process (@modelcontextprotocol/server changed: review scripts/tsup-server-package.mjs)`,
          );
        }
        return {
          contents: `import process from 'node:process';
export class DefaultJsonSchemaValidator {
  constructor() {
    throw new Error('This server was bundled without the SDK default JSON Schema validator: pass jsonSchemaValidator (mcp-common LazyJsonSchemaValidator).');
  }
}
export { process };
`,
          loader: 'js',
        };
      },
    );
    // Should the SDK reach Ajv another way, replacing the shim would change nothing: the bin must then fail to
    // build rather than load Ajv at every start again.
    build.onEnd((result) => {
      if (result.errors.length > 0) return undefined;
      const atStart = startInputs(result.metafile, build.initialOptions.entryPoints).find((input) =>
        /[\\/]ajvProvider-[^\\/]*$/.test(input),
      );
      const problem = atStart
        ? `the bin loads the SDK's Ajv (${atStart}) at start`
        : !replaced
          ? 'the bin no longer loads @modelcontextprotocol/server/_shims (dist/shimsNode.mjs), which it replaces'
          : undefined;
      return problem
        ? {
            errors: [
              { text: `${problem}: review polymodal-sdk-ajv-on-demand in scripts/tsup-server-package.mjs` },
            ],
          }
        : undefined;
    });
  },
};

/**
 * The inputs that the build's entry points load with static imports: what a start evaluates. (esbuild also
 * names an `entryPoint` for each `import()`'s output, which is loaded only when called.)
 */
function startInputs(metafile, entryPoints) {
  const entries = new Set(
    (Array.isArray(entryPoints) ? entryPoints : Object.values(entryPoints)).map((entry) =>
      path.resolve(typeof entry === 'string' ? entry : entry.in),
    ),
  );
  const outputs = metafile.outputs;
  const seen = new Set();
  const visit = (output) => {
    if (seen.has(output) || !outputs[output]) return;
    seen.add(output);
    for (const imported of outputs[output].imports) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  for (const [output, { entryPoint }] of Object.entries(outputs)) {
    if (entryPoint && entries.has(path.resolve(entryPoint))) visit(output);
  }
  return [...seen].flatMap((output) =>
    Object.entries(outputs[output].inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input),
  );
}

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
      esbuildPlugins: [workspaceSources, zodEnglishOnly, sdkAjvOnDemand, undiciHttp2OnUse],
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
