/**
 * Builds MCP Apps views into single self-contained HTML files: each view folder holds `index.html` (the
 * view's `<title>`, then the content of its `<body>`), `style.css` and `main.ts`. The build writes the
 * document around them, the same for every view. The style and the script are bundled by esbuild (the one
 * tsup brings), with what they import (the Polymodal views' kit, packages/mcp-common/views/, by its workspace
 * entries: `@import "@polymodal/mcp-common/views/base.css"`, `import … from '@polymodal/mcp-common/views'`),
 * the script into one minified IIFE for browsers; both are inlined, so a view loads nothing from any origin.
 * A host's CSP forbids eval and caps nothing else we need; the build refuses a view over 1.5 MB (the
 * budget) or one that calls `eval(`.
 *
 * Used by the server packages' bin build (tsup-server-package.mjs) to write `dist/views/<folder>.html`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The largest view a host is asked to load. */
export const MAX_VIEW_BYTES = 1.5 * 1024 * 1024;

// esbuild as tsup resolves it, so views and bins are built by the same esbuild.
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsup'))('esbuild');

/** Builds each view folder into `<outDir>/<folder name>.html`; returns the files' sizes. */
export async function buildViews(folders, outDir) {
  if (folders.length === 0) return {};
  await mkdir(outDir, { recursive: true });
  const sizes = {};
  for (const folder of folders) {
    const name = path.basename(folder);
    const html = await buildView(folder);
    const bytes = Buffer.byteLength(html);
    if (bytes > MAX_VIEW_BYTES)
      throw new Error(`The ${name} view is ${bytes} bytes, over ${MAX_VIEW_BYTES}.`);
    await writeFile(path.join(outDir, `${name}.html`), html);
    sizes[name] = bytes;
  }
  return sizes;
}

/**
 * zod's `z` namespace re-exports every locale of its error messages (`z.locales`), and a view imports `z`
 * through ext-apps: 259 KiB of each ~520 KiB view were translations no view shows (zod itself configures
 * English). The locales' index is replaced by one that offers English alone.
 */
const zodInEnglishOnly = {
  name: 'zod-in-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return {
        path: path.join(path.dirname(args.importer), '..', 'locales', 'en.js'),
        namespace: 'zod-locales',
      };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * A view's script as the build inlines it: main.ts bundled into one minified IIFE for browsers. `metafile`
 * adds esbuild's account of what went in (the bench reports it).
 */
export function bundleViewScript(folder, { metafile = false } = {}) {
  return esbuild.build({
    entryPoints: [path.join(folder, 'main.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    metafile,
    plugins: [zodInEnglishOnly],
  });
}

/** A view's style as the build inlines it: style.css with what it imports, minified. */
async function bundleViewStyle(folder) {
  const bundled = await esbuild.build({
    entryPoints: [path.join(folder, 'style.css')],
    bundle: true,
    write: false,
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
  });
  return bundled.outputFiles[0].text;
}

async function buildView(folder) {
  const name = path.basename(folder);
  const [page, style, bundled] = await Promise.all([
    readFile(path.join(folder, 'index.html'), 'utf8'),
    bundleViewStyle(folder),
    bundleViewScript(folder),
  ]);
  const script = bundled.outputFiles[0].text;
  if (/\beval\(/.test(script)) throw new Error(`The ${name} view calls eval, which a host's CSP refuses.`);
  const parts = /^\s*(<title>[^<]+<\/title>)\s*([\s\S]*)$/.exec(page);
  if (!parts) throw new Error(`The ${name} view's index.html must start with its <title>.`);
  const [, title, body] = parts;
  // Inlined text must not close its element early: `</script` / `</style` in a string literal.
  const inline = (text, tag) => text.replaceAll(`</${tag}`, `<\\/${tag}`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    ${title}
    <style>${inline(style, 'style')}</style>
  </head>
  <body>
${body}<script>${inline(script, 'script')}</script>
  </body>
</html>
`;
}
