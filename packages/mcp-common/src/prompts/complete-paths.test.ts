/**
 * Completion of a recording's path: what the person is offered is what the tools would read — inside the
 * readable directories, regular files of the tool's kinds and folders — every such entry, and nothing else:
 * no link (in or out), no hidden file, no FIFO, no other kind, nothing above or beside the readable
 * directories. Over HTTP no value names a server path.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileAccess } from '@polymodal/core/files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformContext } from '../context/create-platform-context.js';
import { MAX_SCANNED_ENTRIES, readablePaths } from './complete-paths.js';

let root: string;
let media: string;
let outside: string;
let output: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'complete-paths-')));
  media = path.join(root, 'media');
  outside = path.join(root, 'private');
  output = path.join(root, 'out');
  await mkdir(path.join(media, 'team', 'march'), { recursive: true });
  await mkdir(outside);
  await mkdir(output);
  for (const name of ['standup.wav', 'Retro.MP3', 'notes.txt', '.hidden.wav', 'sync.m4a']) {
    await writeFile(path.join(media, name), 'x');
  }
  await writeFile(path.join(media, 'team', 'weekly.wav'), 'x');
  await writeFile(path.join(media, 'team', 'weekly.mp4'), 'x');
  await writeFile(path.join(outside, 'secret.wav'), 'x');
  // Links, to a file inside and to a folder outside: the tools never follow one, so none is offered.
  await symlink(path.join(media, 'standup.wav'), path.join(media, 'alias.wav'));
  await symlink(outside, path.join(media, 'leak'));
  execFileSync('mkfifo', [path.join(media, 'pipe.wav')]);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const AUDIO = ['.wav', '.mp3', '.m4a'];

function complete(
  value: string,
  options: { overHttp?: boolean; revealPaths?: boolean; dirs?: string[] } = {},
) {
  const files = createFileAccess({
    allowedDirs: options.dirs ?? [media],
    outputDir: output,
    revealPaths: options.revealPaths ?? true,
    env: { HOME: root },
  });
  const platform = { files } as PlatformContext;
  return readablePaths(AUDIO)({
    value,
    arguments: {},
    deps: { platform },
    signal: new AbortController().signal,
    overHttp: options.overHttp ?? false,
  });
}

describe('readablePaths on stdio (a person on this machine)', () => {
  it('offers the readable directories for an empty value', async () => {
    expect((await complete('')).values).toEqual([`${media}/`, `${output}/`]);
  });

  it('offers every recording and folder of a readable folder, and nothing the tools would refuse', async () => {
    const { values, hasMore } = await complete(`${media}/`);
    expect(values).toEqual(
      ['Retro.MP3', 'standup.wav', 'sync.m4a', 'team/'].map((name) => `${media}/${name}`),
    );
    expect(hasMore).toBe(false);
  });

  it('narrows by the name typed, in any letter case, and goes into folders', async () => {
    expect((await complete(`${media}/s`)).values).toEqual([`${media}/standup.wav`, `${media}/sync.m4a`]);
    expect((await complete(`${media}/r`)).values).toEqual([`${media}/Retro.MP3`]);
    expect((await complete(`${media}/team/`)).values).toEqual([
      `${media}/team/march/`,
      `${media}/team/weekly.wav`,
    ]);
  });

  it('spells a path as the person did: relative to the first readable directory, or from ~', async () => {
    expect((await complete('team/w')).values).toEqual(['team/weekly.wav']);
    expect((await complete('~/media/st')).values).toEqual(['~/media/standup.wav']);
  });

  it('offers nothing outside: not through .., not through a link, not beside the readable directories', async () => {
    expect((await complete(`${media}/../private/`)).values).toEqual([]);
    expect((await complete('../private/')).values).toEqual([]);
    expect((await complete(`${media}/leak/`)).values).toEqual([]);
    expect((await complete(`${outside}/`)).values).toEqual([]);
    // Typing the start of a readable directory's path offers the directories, not what lies beside them.
    expect((await complete(`${root}/`)).values).toEqual([`${media}/`, `${output}/`]);
    expect((await complete(`${root}/me`)).values).toEqual([`${media}/`]);
  });

  it('offers nothing when no directory is readable', async () => {
    expect((await complete('', { dirs: [] })).values).toEqual([]);
    expect((await complete(`${media}/`, { dirs: [] })).values).toEqual([]);
  });
});

describe('readablePaths over HTTP (a remote caller)', () => {
  for (const [label, options] of [
    ['an HTTP request', { overHttp: true }],
    ['a context that hides its paths', { revealPaths: false }],
  ] as const) {
    it(`offers paths relative to the first readable directory only, for ${label}`, async () => {
      expect((await complete('', options)).values).toEqual(['Retro.MP3', 'standup.wav', 'sync.m4a', 'team/']);
      expect((await complete('team/', options)).values).toEqual(['team/march/', 'team/weekly.wav']);
      for (const typed of [`${media}/`, '/', '~/', '../', 'team/../../', 'file:///', 'leak/']) {
        expect((await complete(typed, options)).values, typed).toEqual([]);
      }
    });
  }
});

describe('readablePaths in a large folder', () => {
  it(`reads at most ${MAX_SCANNED_ENTRIES} entries and says that there is more`, async () => {
    const big = path.join(root, 'big');
    await mkdir(big);
    for (let index = 0; index <= MAX_SCANNED_ENTRIES; index += 1) {
      await writeFile(path.join(big, `take-${String(index).padStart(4, '0')}.wav`), '');
    }
    const { values, hasMore } = await complete(`${big}/`, { dirs: [big] });
    expect(values).toHaveLength(100);
    expect(hasMore).toBe(true);
    for (const value of values) expect(value).toMatch(new RegExp(`^${big}/take-\\d{4}\\.wav$`));
  });
});
