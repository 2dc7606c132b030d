/**
 * Completion of the speech prompts' recordings: a reading check offers the audio a reading score takes, a
 * transcript every recording the recogniser decodes (through ffmpeg beyond WAV); neither offers a text file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { completionOf, connectInProcess, GENERATIONS, useServerEnv } from '@polymodal/mcp-common/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-speech-completion-', sandbox: false });

beforeAll(async () => {
  const students = path.join(env.POLYMODAL_ALLOWED_DIRS as string, 'students');
  await mkdir(students, { recursive: true });
  for (const name of ['somchai.wav', 'malee.m4a', 'lesson.mp4', 'text.txt']) {
    await writeFile(path.join(students, name), 'x');
  }
});

describe.each(GENERATIONS)('completing the speech prompts, %s', (generation) => {
  it('offers the recordings each prompt takes', async () => {
    const server = await connectInProcess(generation, createServer, { env, secrets: [] });
    try {
      expect(
        (await completionOf(server.client, 'check_thai_reading', 'recording', 'students/')).values,
      ).toEqual(['students/malee.m4a', 'students/somchai.wav']);
      expect((await completionOf(server.client, 'thai_transcript', 'recording', 'students/')).values).toEqual(
        ['students/lesson.mp4', 'students/malee.m4a', 'students/somchai.wav'],
      );
      expect(await completionOf(server.client, 'check_thai_reading', 'referenceText', 'ฉัน')).toEqual({
        values: [],
        hasMore: false,
      });
    } finally {
      await server.close();
    }
  });
});
