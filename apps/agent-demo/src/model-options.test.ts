import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, isLoopbackHost, resolveModelChoice } from './model-options.js';

const KEY = 'sk-demo-secret-1234';

describe('resolveModelChoice', () => {
  it("defaults to the platform's shared LLM, with the model from the flag or either variable", () => {
    expect(resolveModelChoice({}, {})).toEqual({ kind: 'platform', model: undefined });
    expect(resolveModelChoice({}, { POLYMODAL_LLM_MODEL: 'pool-large' })).toEqual({
      kind: 'platform',
      model: 'pool-large',
    });
    expect(
      resolveModelChoice(
        { 'llm-model': 'flagged' },
        { POLYMODAL_DEMO_LLM_MODEL: 'demo', POLYMODAL_LLM_MODEL: 'pool-large' },
      ),
    ).toEqual({ kind: 'platform', model: 'flagged' });
  });

  it('takes an endpoint from flags or variables, flags first', () => {
    const env = {
      POLYMODAL_DEMO_LLM_BASE_URL: 'https://llm.example/v1/',
      POLYMODAL_DEMO_LLM_MODEL: 'm-env',
      POLYMODAL_DEMO_LLM_API_KEY: KEY,
    };
    expect(resolveModelChoice({}, env)).toEqual({
      kind: 'endpoint',
      baseUrl: 'https://llm.example/v1',
      apiKey: KEY,
      model: 'm-env',
    });
    expect(resolveModelChoice({ 'llm-model': 'm-flag', 'llm-api-key': 'other' }, env)).toMatchObject({
      model: 'm-flag',
      apiKey: 'other',
    });
  });

  it('does not read OPENAI_* variables', () => {
    expect(
      resolveModelChoice({}, { OPENAI_BASE_URL: 'https://api.openai.com/v1', OPENAI_API_KEY: KEY }),
    ).toEqual({ kind: 'platform', model: undefined });
  });

  it('refuses incomplete endpoint settings without showing the key', () => {
    const attempts = [
      () => resolveModelChoice({ 'llm-api-key': KEY }, {}),
      () => resolveModelChoice({ 'llm-base-url': 'https://llm.example/v1', 'llm-api-key': KEY }, {}),
      () => resolveModelChoice({ 'llm-base-url': 'https://llm.example/v1', 'llm-model': 'm' }, {}),
      () =>
        resolveModelChoice(
          { 'llm-base-url': 'https://llm.example/v1', 'llm-model': 'm', 'llm-api-key': `${KEY}\n x` },
          {},
        ),
    ];
    const messages = attempts.map((attempt) => {
      try {
        attempt();
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(messages[0]).toMatch(/--llm-base-url/);
    expect(messages[1]).toMatch(/needs --llm-model/);
    expect(messages[2]).toMatch(/POLYMODAL_DEMO_LLM_API_KEY/);
    expect(messages[3]).toMatch(/line breaks/);
    for (const message of messages) expect(message).not.toContain(KEY);
  });
});

describe('checkEndpointUrl', () => {
  it('accepts https anywhere and plain http to loopback only', () => {
    expect(checkEndpointUrl('https://api.example.com/v1')).toBe('https://api.example.com/v1');
    expect(checkEndpointUrl('http://127.0.0.1:11434/v1/')).toBe('http://127.0.0.1:11434/v1');
    expect(checkEndpointUrl('http://localhost:8000/v1')).toBe('http://localhost:8000/v1');
    expect(checkEndpointUrl('http://[::1]:8000/v1')).toBe('http://[::1]:8000/v1');
    expect(() => checkEndpointUrl('http://llm.example/v1')).toThrow(/Refusing plain http to llm\.example/);
    expect(() => checkEndpointUrl('http://10.0.0.5/v1')).toThrow(/Refusing plain http/);
    expect(() => checkEndpointUrl('http://127.0.0.1.example/v1')).toThrow(/Refusing plain http/);
  });

  it('refuses credentials, queries and other schemes', () => {
    expect(() => checkEndpointUrl('https://user:pw@llm.example/v1')).toThrow(/credentials/);
    expect(() => checkEndpointUrl('https://llm.example/v1?key=1')).toThrow(/query/);
    expect(() => checkEndpointUrl('ftp://llm.example/v1')).toThrow(/https:\/\//);
    expect(() => checkEndpointUrl('not a url')).toThrow(/not a valid URL/);
  });

  it('knows loopback hosts by address, not by spelling', () => {
    expect(isLoopbackHost('127.8.9.10')).toBe(true);
    expect(isLoopbackHost('[::ffff:127.0.0.1]')).toBe(true);
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('localhost.evil.example')).toBe(false);
    expect(isLoopbackHost('192.168.1.2')).toBe(false);
  });
});
