import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPolymodalServer } from './create-polymodal-server.js';
import { LazyJsonSchemaValidator, loadJsonSchemaValidator } from './lazy-json-schema-validator.js';

describe('LazyJsonSchemaValidator', () => {
  it('builds no Ajv until a schema is checked, then checks as the SDK default does', async () => {
    await loadJsonSchemaValidator();
    const validator = new LazyJsonSchemaValidator();
    expect(validator.built).toBe(false);
    const check = validator.getValidator<{ consent: boolean }>({
      type: 'object',
      properties: { consent: { type: 'boolean' } },
      required: ['consent'],
    });
    expect(validator.built).toBe(true);
    expect(check({ consent: true })).toEqual({
      valid: true,
      data: { consent: true },
      errorMessage: undefined,
    });
    const refused = check({ consent: 'yes' });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toContain('boolean');
  });

  it('is the validator of every Polymodal server, unbuilt until an elicitation answer is checked', async () => {
    const stateDir = await mkdtemp(path.join(os.tmpdir(), 'lazy-validator-'));
    const instance = createPolymodalServer({
      name: 'sample',
      title: 'Sample',
      version: '0.0.0',
      instructions: '',
      deps: {
        env: {
          POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
          POLYMODAL_API_KEY: 'test-key',
          POLYMODAL_STATE_DIR: stateDir,
          POLYMODAL_ALLOWED_DIRS: stateDir,
        },
      },
      groups: [],
    });
    const validator = (instance.server.server as unknown as { _jsonSchemaValidator: unknown })
      ._jsonSchemaValidator;
    expect(validator).toBeInstanceOf(LazyJsonSchemaValidator);
    expect((validator as LazyJsonSchemaValidator).built).toBe(false);
    await instance.cleanup();
    await rm(stateDir, { recursive: true, force: true });
  });
});
