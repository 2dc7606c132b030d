import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/polymodal-error.js';
import { resolveConfig } from './resolve-config.js';

const KEY = 'pk_test_abcDEF123';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveConfig', () => {
  it('reads the environment and normalises the base URL', () => {
    expect(
      resolveConfig({
        env: { POLYMODAL_BASE_URL: 'https://platform.example.com/base//', POLYMODAL_API_KEY: KEY },
      }),
    ).toEqual({ baseUrl: 'https://platform.example.com/base', apiKey: KEY });
    expect(
      resolveConfig({ env: { POLYMODAL_BASE_URL: 'http://127.0.0.1:8080/', POLYMODAL_API_KEY: KEY } })
        .baseUrl,
    ).toBe('http://127.0.0.1:8080');
  });

  it('lets options win over the environment', () => {
    const config = resolveConfig({
      baseUrl: 'https://option.example.com',
      apiKey: 'pk_option_1',
      env: { POLYMODAL_BASE_URL: 'https://env.example.com', POLYMODAL_API_KEY: KEY },
    });
    expect(config).toEqual({ baseUrl: 'https://option.example.com', apiKey: 'pk_option_1' });
  });

  it('names the missing variable and says how to fix it', () => {
    const noUrl = configError(() => resolveConfig({ env: { POLYMODAL_API_KEY: KEY } }));
    expect(noUrl.variable).toBe('POLYMODAL_BASE_URL');
    expect(noUrl.message).toContain('POLYMODAL_BASE_URL is not set');
    const noKey = configError(() => resolveConfig({ env: { POLYMODAL_BASE_URL: 'https://a.example' } }));
    expect(noKey.variable).toBe('POLYMODAL_API_KEY');
    expect(noKey.message).toMatch(/POLYMODAL_API_KEY is not set.*dashboard/);
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['ftp://files.example.com', 'http:// or https://'],
    ['https://user:pw@platform.example.com', 'must not contain credentials'],
    ['https://platform.example.com/?api_key=x', 'query'],
    ['https://platform.example.com/#frag', 'fragment'],
  ])('refuses the malformed base URL %s', (value, expected) => {
    const error = configError(() =>
      resolveConfig({ env: { POLYMODAL_BASE_URL: value, POLYMODAL_API_KEY: KEY } }),
    );
    expect(error.variable).toBe('POLYMODAL_BASE_URL');
    expect(error.message).toContain(expected);
    expect(error.message).not.toContain('pw@');
  });

  it.each([
    ['a trailing newline', `${KEY}\n`],
    ['a CR/LF', `${KEY}\r\nX-Evil: 1`],
    ['a space', `pk_test abc`],
    ['a control character', `${KEY}\u0007`],
  ])('refuses a key with %s and never echoes it', (_label, key) => {
    const error = configError(() =>
      resolveConfig({ env: { POLYMODAL_BASE_URL: 'https://a.example', POLYMODAL_API_KEY: key } }),
    );
    expect(error.variable).toBe('POLYMODAL_API_KEY');
    expect(error.message).toContain('line breaks');
    expect(error.message).not.toContain(key.trim());
    expect(error.message).not.toContain('pk_test');
  });
});
