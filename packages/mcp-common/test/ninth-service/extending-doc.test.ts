/**
 * docs/extending.md teaches with the toy ninth service's code, and this keeps the two the same: every ```ts
 * block of the doc whose first line is `// from <file>#<region>` must be that region of that file (the lines
 * between `// #region <region>` and `// #endregion`, their common indentation removed), so that a change to
 * the code fails the build until the doc follows. Every region the toy marks is shown, and a ```ts block that
 * is not an excerpt says so on its first line (`// sketch: …`), so no reader takes a sketch for checked code.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..');
const DOC = path.join(ROOT, 'docs', 'extending.md');
const TOY = path
  .relative(ROOT, import.meta.dirname)
  .split(path.sep)
  .join('/');

const EXCERPT = /^\/\/ from (\S+)#([\w-]+)$/;
const SKETCH = /^\/\/ sketch: \S/;

interface Block {
  /** 1-based line of the opening fence in the doc. */
  line: number;
  first: string;
  body: string;
}

/** The doc's ```ts blocks: first line apart, the rest as written. */
function tsBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```ts') continue;
    const end = lines.indexOf('```', index + 1);
    if (end === -1) throw new Error(`docs/extending.md:${index + 1}: a ts block is never closed`);
    const [first = '', ...rest] = lines.slice(index + 1, end);
    blocks.push({ line: index + 1, first, body: rest.join('\n') });
    index = end;
  }
  return blocks;
}

/** Every region of a source file by name, dedented. */
function regionsOf(source: string): Map<string, string> {
  const regions = new Map<string, string>();
  const lines = source.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const name = /^\s*\/\/ #region ([\w-]+)$/.exec(lines[index] ?? '')?.[1];
    if (name === undefined) continue;
    const end = lines.findIndex((line, at) => at > index && /^\s*\/\/ #endregion$/.test(line));
    if (end === -1) throw new Error(`region ${name} is never closed`);
    if (regions.has(name)) throw new Error(`region ${name} is marked twice`);
    regions.set(name, dedent(lines.slice(index + 1, end)));
    index = end;
  }
  return regions;
}

function dedent(lines: readonly string[]): string {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = Math.min(...indents);
  return lines.map((line) => line.slice(common)).join('\n');
}

/** The regions the toy's files mark, keyed `<file from the repository root>#<region>`. */
async function toyRegions(): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  for (const file of (await readdir(import.meta.dirname)).filter((name) => name.endsWith('.ts')).sort()) {
    const source = await readFile(path.join(import.meta.dirname, file), 'utf8');
    for (const [name, text] of regionsOf(source)) all.set(`${TOY}/${file}#${name}`, text);
  }
  return all;
}

describe('docs/extending.md', () => {
  it('shows each excerpt of the toy ninth service exactly as the code has it', async () => {
    const blocks = tsBlocks(await readFile(DOC, 'utf8'));
    const regions = await toyRegions();
    const excerpts = blocks.filter((block) => EXCERPT.test(block.first));
    expect(excerpts.length).toBeGreaterThanOrEqual(8);
    for (const block of excerpts) {
      const [, file, region] = EXCERPT.exec(block.first) ?? [];
      const key = `${file}#${region}`;
      expect(regions.has(key), `docs/extending.md:${block.line} names ${key}, which no file marks`).toBe(
        true,
      );
      expect(block.body, `docs/extending.md:${block.line} differs from ${key}`).toBe(regions.get(key));
    }
  });

  it('shows every region the toy marks, and says which other blocks are sketches', async () => {
    const blocks = tsBlocks(await readFile(DOC, 'utf8'));
    const shown = new Set(
      blocks.flatMap((block) => {
        const match = EXCERPT.exec(block.first);
        return match ? [`${match[1]}#${match[2]}`] : [];
      }),
    );
    expect([...(await toyRegions()).keys()].filter((key) => !shown.has(key))).toEqual([]);
    const unmarked = blocks.filter((block) => !EXCERPT.test(block.first) && !SKETCH.test(block.first));
    expect(unmarked.map((block) => `docs/extending.md:${block.line}`)).toEqual([]);
  });

  it('finds regions as the doc names them', () => {
    const source = ['a', '  // #region one', '  const x = 1;', '', '    y();', '  // #endregion', 'b'].join(
      '\n',
    );
    expect(regionsOf(source)).toEqual(new Map([['one', 'const x = 1;\n\n  y();']]));
    const doc = ['text', '```ts', '// from f.ts#one', 'const x = 1;', '```', '```sh', 'ls', '```'].join('\n');
    expect(tsBlocks(doc)).toEqual([{ line: 2, first: '// from f.ts#one', body: 'const x = 1;' }]);
  });
});
