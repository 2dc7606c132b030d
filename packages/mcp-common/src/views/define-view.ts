/**
 * A view (`ToolView`) from its built HTML file. Where the file sits depends on how the server runs: beside
 * the bundled bin (`dist/main.js` → `dist/views/`), beside a chunk of it (`dist/bin/` → `dist/views/`), or,
 * in tests that run the TypeScript sources, in the package's `dist/views/` built by `pnpm build`. So a view
 * names the places to look, relative to its own module, and the first that exists is read once per process.
 */
import { readFile } from 'node:fs/promises';
import type { ToolView } from '../tools/define-tool.js';

export interface ViewSource {
  name: string;
  title: string;
  description: string;
  /** Where the built HTML may be, in order (URLs relative to the defining module's `import.meta.url`). */
  files: readonly URL[];
  csp?: ToolView['csp'];
}

/**
 * The places a package's built view `file` may be, for a view defined in `src/views/` (`from` is the
 * defining module's `import.meta.url`): beside dist/main.js or dist/server.js, beside a chunk in dist/bin/,
 * or, from the sources (tests), in the built package.
 */
export function builtViewFiles(from: string, file: string): URL[] {
  return [`./views/${file}`, `../views/${file}`, `../../dist/views/${file}`].map(
    (relative) => new URL(relative, from),
  );
}

export function defineView(source: ViewSource): ToolView {
  const { files, ...view } = source;
  let html: Promise<string> | undefined;
  return {
    ...view,
    html() {
      html ??= readFirst(files, view.name).catch((error: unknown) => {
        // A failed read is tried again by the next client (a build may finish in between).
        html = undefined;
        throw error;
      });
      return html;
    },
  };
}

async function readFirst(files: readonly URL[], name: string): Promise<string> {
  for (const file of files) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  // No path in the message: a remote client reading the view would see the server's directories (the
  // places looked in are the definition's `files`).
  throw new Error(`The ${name} view is not built in this installation: run pnpm build.`);
}
