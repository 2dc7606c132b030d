import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../errors/polymodal-error.js';
import { createFileAccess } from './create-file-access.js';

let base: string;
let allowed: string;
let outside: string;
let output: string;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'polymodal-files-')));
  allowed = path.join(base, 'rec');
  outside = path.join(base, 'rec_evil');
  output = path.join(base, 'out');
  await mkdir(allowed);
  await mkdir(outside);
  await writeFile(path.join(allowed, 'meeting.wav'), 'inside');
  await writeFile(path.join(outside, 'secret.wav'), 'outside');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('createFileAccess', () => {
  it('reads files inside an allowed directory, relative paths against the first one', async () => {
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    expect(await files.resolveReadable(path.join(allowed, 'meeting.wav'))).toBe(
      path.join(allowed, 'meeting.wav'),
    );
    expect(await files.resolveReadable('meeting.wav')).toBe(path.join(allowed, 'meeting.wav'));
    const opened = await files.openReadable('meeting.wav');
    try {
      expect(opened.realPath).toBe(path.join(allowed, 'meeting.wav'));
      expect(opened.size).toBe(6);
      expect((await opened.handle.readFile()).toString()).toBe('inside');
    } finally {
      await opened.handle.close();
    }
  });

  it('takes the allowed directories from POLYMODAL_ALLOWED_DIRS', async () => {
    const files = createFileAccess({
      env: {
        POLYMODAL_ALLOWED_DIRS: [allowed, path.join(base, 'missing')].join(path.delimiter),
        POLYMODAL_OUTPUT_DIR: output,
      },
    });
    expect(files.allowedDirs()).toEqual([allowed, output]);
    expect(await files.resolveReadable(path.join(allowed, 'meeting.wav'))).toBe(
      path.join(allowed, 'meeting.wav'),
    );
  });

  it('does not let /x/rec admit the sibling /x/rec_evil', async () => {
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    const error = await rejection(files.resolveReadable(path.join(outside, 'secret.wav')));
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(error.message).toContain('outside the allowed directories');
  });

  it('refuses .. escapes', async () => {
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    await expect(files.resolveReadable('../rec_evil/secret.wav')).rejects.toThrow('outside the allowed');
    await expect(files.resolveReadable(`${allowed}/../rec_evil/secret.wav`)).rejects.toThrow(
      'outside the allowed',
    );
  });

  it('refuses a symlinked file that points outside', async () => {
    await symlink(path.join(outside, 'secret.wav'), path.join(allowed, 'link.wav'));
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    await expect(files.resolveReadable(path.join(allowed, 'link.wav'))).rejects.toThrow(
      'outside the allowed',
    );
    await expect(files.openReadable(path.join(allowed, 'link.wav'))).rejects.toThrow('outside the allowed');
  });

  it('refuses a symlinked parent directory that points outside', async () => {
    await symlink(outside, path.join(allowed, 'sub'));
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    await expect(files.openReadable(path.join(allowed, 'sub', 'secret.wav'))).rejects.toThrow(
      'outside the allowed',
    );
  });

  it('accepts a symlink that stays inside', async () => {
    await symlink(path.join(allowed, 'meeting.wav'), path.join(allowed, 'alias.wav'));
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    expect(await files.resolveReadable(path.join(allowed, 'alias.wav'))).toBe(
      path.join(allowed, 'meeting.wav'),
    );
  });

  it('refuses directories and FIFOs on open', async () => {
    await mkdir(path.join(allowed, 'folder.wav'));
    execFileSync('mkfifo', [path.join(allowed, 'pipe.wav')]);
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    await expect(files.openReadable(path.join(allowed, 'folder.wav'))).rejects.toThrow(
      /directory|not a regular file/,
    );
    await expect(files.openReadable(path.join(allowed, 'pipe.wav'))).rejects.toThrow('not a regular file');
  });

  it('refuses everything, the output directory included, when nothing is allowed, naming POLYMODAL_ALLOWED_DIRS', async () => {
    const files = createFileAccess({ outputDir: output, env: {} });
    const error = await rejection(files.resolveReadable(path.join(allowed, 'meeting.wav')));
    expect(error.message).toContain('POLYMODAL_ALLOWED_DIRS');
    const written = await files.writeOutput('summary.md', '# notes');
    expect((await rejection(files.resolveReadable(written))).message).toContain('POLYMODAL_ALLOWED_DIRS');
    // Once a directory is allowed, saved outputs can be fed back in as inputs.
    const granted = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    expect(await granted.resolveReadable(written)).toBe(written);
  });

  it('adds MCP roots (paths or file URIs) and replaces them on the next call', async () => {
    const files = createFileAccess({ outputDir: output, env: {} });
    files.setRoots([`file://${outside}`]);
    expect(await files.resolveReadable(path.join(outside, 'secret.wav'))).toBe(
      path.join(outside, 'secret.wav'),
    );
    files.setRoots([allowed]);
    await expect(files.resolveReadable(path.join(outside, 'secret.wav'))).rejects.toThrow('outside');
    expect(await files.resolveReadable(path.join(allowed, 'meeting.wav'))).toBe(
      path.join(allowed, 'meeting.wav'),
    );
  });

  it('answers a path outside the same whether or not it exists, a link leading out included', async () => {
    await symlink(outside, path.join(allowed, 'sub'));
    await symlink(path.join(outside, 'secret.wav'), path.join(allowed, 'link.wav'));
    // Relative, dangling, and reached through the link above: it leads to <base>/elsewhere, outside.
    await symlink('../elsewhere/secret.wav', path.join(outside, 'relative.wav'));
    for (const revealPaths of [true, false]) {
      const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {}, revealPaths });
      const probes = [
        path.join(outside, 'secret.wav'),
        path.join(allowed, 'sub', 'secret.wav'),
        path.join(allowed, 'link.wav'),
        path.join(allowed, 'sub', 'relative.wav'),
      ];
      const answers = async () =>
        Promise.all(probes.map(async (probe) => (await rejection(files.resolveReadable(probe))).message));
      const whileThere = await answers();
      await rm(path.join(outside, 'secret.wav'));
      const whenGone = await answers();
      await writeFile(path.join(outside, 'secret.wav'), 'outside');
      expect(whenGone).toEqual(whileThere);
      for (const message of whileThere) expect(message).toContain('is outside the allowed directories');
      // Unknown in the outside directory and in no directory at all: the same refusal.
      const nowhere = await rejection(files.resolveReadable(path.join(base, 'no-such-dir', 'secret.wav')));
      expect(nowhere.message).toContain('is outside the allowed directories');
      expect(ValidationError.isInstance(nowhere) && nowhere.issues).toEqual([
        { path: 'path', message: 'path not allowed' },
      ]);
    }
    // Inside a readable directory a missing file is still reported as missing.
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    await expect(files.resolveReadable(path.join(allowed, 'gone.wav'))).rejects.toThrow('does not exist');
  });

  it('names no server path to a remote caller, and the readable directories to a local one', async () => {
    execFileSync('mkfifo', [path.join(allowed, 'pipe.wav')]);
    const local = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    const localRefusal = await rejection(local.resolveReadable(path.join(outside, 'secret.wav')));
    expect(localRefusal.message).toContain(allowed);

    const remote = createFileAccess({
      allowedDirs: [allowed],
      outputDir: output,
      env: {},
      revealPaths: false,
    });
    expect(remote.revealsPaths).toBe(false);
    const messages = [
      (await rejection(remote.resolveReadable(path.join(outside, 'secret.wav')))).message,
      (await rejection(remote.resolveReadable('../rec_evil/secret.wav'))).message,
      (await rejection(remote.resolveReadable('gone.wav'))).message,
      (await rejection(remote.openReadable('pipe.wav'))).message,
      (
        await rejection(
          createFileAccess({ outputDir: output, env: {}, revealPaths: false }).resolveReadable('x.wav'),
        )
      ).message,
    ];
    expect(messages[0]).toMatch(/secret\.wav is outside the allowed directories/);
    expect(messages[1]).toMatch(/^\.\.\/rec_evil\/secret\.wav is outside the allowed directories/);
    expect(messages[2]).toMatch(/^gone\.wav does not exist/);
    expect(messages[3]).toMatch(/^pipe\.wav is a named pipe/);
    expect(messages[4]).toMatch(/^x\.wav is not readable: no directories are allowed/);
    // The only server path in these answers is the one the caller gave itself.
    expect((messages[0] ?? '').replace(path.join(outside, 'secret.wav'), '')).not.toContain(base);
    for (const message of messages.slice(1)) expect(message).not.toContain(base);
  });

  it('refuses relative directories in the configuration', () => {
    expect(() => createFileAccess({ env: { POLYMODAL_ALLOWED_DIRS: 'recordings' } })).toThrow(ConfigError);
  });

  it('writes outputs atomically under a sanitised name, leaving no temp file', async () => {
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    const written = await files.writeOutput('../../etc/passwd', 'data');
    expect(path.dirname(written)).toBe(output);
    expect(path.basename(written)).toBe('_.._etc_passwd');
    expect(await readFile(written, 'utf8')).toBe('data');
    const streamed = await files.writeOutput(
      'transcript.txt',
      Readable.from([Buffer.from('a'), Buffer.from('b')]),
    );
    expect(await readFile(streamed, 'utf8')).toBe('ab');
    expect((await readdir(output)).sort()).toEqual(['_.._etc_passwd', 'transcript.txt']);
    expect((await lstat(output)).mode & 0o777).toBe(0o700);
    expect((await lstat(written)).mode & 0o777).toBe(0o600);
  });

  it('never writes through an existing symlink in the output directory', async () => {
    await mkdir(output);
    const target = path.join(outside, 'secret.wav');
    await symlink(target, path.join(output, 'result.txt'));
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: output, env: {} });
    const written = await files.writeOutput('result.txt', 'new content');
    expect(await readFile(target, 'utf8')).toBe('outside');
    expect((await lstat(written)).isSymbolicLink()).toBe(false);
    expect(await readFile(written, 'utf8')).toBe('new content');
  });
});
