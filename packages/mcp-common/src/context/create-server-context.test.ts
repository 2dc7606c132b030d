import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@polymodal/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServerContext } from './create-server-context.js';

const KEY = 'pm_live_contextSecret42';

describe('createServerContext', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'context-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds the client, files and ledger from the environment and lists the key as a secret', async () => {
    const context = createServerContext({
      env: {
        POLYMODAL_BASE_URL: 'http://127.0.0.1:9/',
        POLYMODAL_API_KEY: KEY,
        POLYMODAL_STATE_DIR: path.join(dir, 'state'),
        POLYMODAL_ALLOWED_DIRS: dir,
        POLYMODAL_OUTPUT_DIR: path.join(dir, 'out'),
      },
    });
    try {
      expect(context.secrets).toContain(KEY);
      expect(context.polymodal.config.baseUrl).toBe('http://127.0.0.1:9');
      expect(context.files.outputDir).toBe(path.join(dir, 'out'));
      expect(context.ledger.location.startsWith(path.join(dir, 'state'))).toBe(true);
      expect(JSON.stringify(context.polymodal)).not.toContain(KEY);
    } finally {
      await context.close();
    }
  });

  it('throws a ConfigError naming the variable, never its value', () => {
    let caught: unknown;
    try {
      createServerContext({
        env: { POLYMODAL_BASE_URL: 'http://127.0.0.1:9', POLYMODAL_API_KEY: `${KEY}\r\nX: y` },
      });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain('POLYMODAL_API_KEY');
    expect((caught as Error).message).not.toContain(KEY);
    expect(() => createServerContext({ env: { POLYMODAL_API_KEY: KEY } })).toThrow(/POLYMODAL_BASE_URL/);
  });
});
