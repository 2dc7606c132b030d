import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileAccess, type FileAccess } from '@polymodal/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addResourceLinks } from './link-output-resources.js';
import { outputLink } from './output-link.js';
import { readOutputResource } from './output-resources.js';

let dir: string;
let files: FileAccess;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'output-links-'));
  files = createFileAccess({ allowedDirs: [], outputDir: path.join(dir, 'out') });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('addResourceLinks', () => {
  it('keeps the file:// link first over stdio and adds the resource link after it', async () => {
    const saved = await files.writeOutput('speech.wav', Buffer.from('RIFF'));
    const link = outputLink(saved, { mimeType: 'audio/wav', size: 4 });
    const result = addResourceLinks({ content: [{ type: 'text', text: 'Saved.' }, link] }, files, false);
    expect(result.content).toEqual([
      { type: 'text', text: 'Saved.' },
      link,
      { ...link, uri: 'polymodal://outputs/speech.wav' },
    ]);
  });

  it('over HTTP names the resource instead of the server path, in the text and the structured content', async () => {
    const saved = await files.writeOutput('summary #1.md', '# Summary');
    const other = path.join(dir, 'out', 'not-linked.md');
    const link = outputLink(saved, { mimeType: 'text/markdown' });
    const result = addResourceLinks(
      {
        content: [{ type: 'text', text: `Saved to ${saved}. ${other} is not linked.` }, link],
        structuredContent: { savedPath: saved, next: `open ${saved}`, files: [{ path: saved }], count: 1 },
      },
      files,
      true,
    );
    const uri = 'polymodal://outputs/summary%20%231.md';
    expect(result.content).toEqual([
      { type: 'text', text: `Saved to ${uri}. ${other} is not linked.` },
      { ...link, uri },
    ]);
    expect(result.structuredContent).toEqual({
      savedPath: uri,
      next: `open ${uri}`,
      files: [{ path: uri }],
      count: 1,
    });
    // Over stdio the paths stay: a local host opens them.
    const local = addResourceLinks(
      {
        content: [{ type: 'text', text: `Saved to ${saved}.` }, link],
        structuredContent: { savedPath: saved },
      },
      files,
      false,
    );
    expect(local.content[0]).toEqual({ type: 'text', text: `Saved to ${saved}.` });
    expect(local.structuredContent).toEqual({ savedPath: saved });
  });

  it('leaves links to files outside the output directory alone', () => {
    const link = outputLink(path.join(dir, 'elsewhere.md'), { mimeType: 'text/markdown' });
    const result = { content: [link] };
    expect(addResourceLinks(result, files, true)).toBe(result);
  });
});

describe('readOutputResource', () => {
  it('returns a binary output as a base64 blob with its mime type', async () => {
    const bytes = Buffer.from([0x52, 0x49, 0x46, 0x46, 0, 1, 2, 255]);
    await files.writeOutput('speech.wav', bytes);
    const read = await readOutputResource(files, 'polymodal://outputs/speech.wav', 'speech.wav');
    expect(read.contents).toEqual([
      { uri: 'polymodal://outputs/speech.wav', mimeType: 'audio/wav', blob: bytes.toString('base64') },
    ]);
  });

  it('refuses a file over the cap without a known platform URL by pointing at the tool result', async () => {
    await files.writeOutput('notes.md', 'x'.repeat(2048));
    await expect(readOutputResource(files, 'polymodal://outputs/notes.md', 'notes.md', 1024)).rejects.toThrow(
      /notes\.md is 2048 bytes, over the 1024-byte limit of resources\/read; use the link in the tool result/,
    );
  });
});
