import { readFile } from 'node:fs/promises';
import { ConfigError, ConnectionError, JobFailedError, ValidationError } from '@polymodal/core';
import { createApiError } from '@polymodal/core/errors';
import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_META_KEY, toolError } from './tool-error.js';

const KEY = 'pm_live_s3cr3tValue123';
const secrets = [KEY];

function apiError(status: number, serverMessage?: string) {
  return createApiError({
    status,
    method: 'POST',
    url: '/api/conference-summary/v1/jobs',
    body: serverMessage ? { error: serverMessage } : undefined,
    serverMessage,
  });
}

function textOf(result: ReturnType<typeof toolError>): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('expected a text item');
  return first.text;
}

describe('toolError', () => {
  it('marks the result as an error without structured content (it would not fit the output schema)', () => {
    const result = toolError(apiError(404), { secrets });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[TOOL_ERROR_META_KEY]).toMatchObject({ kind: 'api', status: 404 });
  });

  it('402 names the cost of the recording', () => {
    const text = textOf(
      toolError(apiError(402, 'insufficient credits'), { secrets, hints: { credits: 24 } }),
    );
    expect(text).toMatch(/^HTTP 402: not enough credits; this recording costs 24 credits/);
    expect(text).toContain('insufficient credits');
  });

  it('409 names the job and its current state', () => {
    const text = textOf(
      toolError(apiError(409), { secrets, hints: { jobId: 'job_1', jobState: 'COMPLETED' } }),
    );
    expect(text).toContain('HTTP 409');
    expect(text).toContain('job job_1 is in state COMPLETED');
  });

  it('413 names the limit', () => {
    const text = textOf(
      toolError(apiError(413), { secrets, hints: { limit: '2 hours of recording, 2 GiB per upload' } }),
    );
    expect(text).toContain('HTTP 413');
    expect(text).toContain('2 hours of recording, 2 GiB per upload');
  });

  it('401 says to check POLYMODAL_API_KEY and never shows the key', () => {
    const text = textOf(toolError(apiError(401, `key ${KEY} revoked`), { secrets }));
    expect(text).toContain('HTTP 401');
    expect(text).toContain('POLYMODAL_API_KEY');
    expect(text).not.toContain(KEY);
    expect(text).toContain('***');
  });

  it('a 404 that is not about a job names what was not found, and never a job', () => {
    const text = textOf(toolError(apiError(404), { secrets, hints: { resource: 'the voice "v1"' } }));
    expect(text).toMatch(/^HTTP 404: the voice "v1" was not found/);
    expect(text).not.toMatch(/job/i);
    expect(textOf(toolError(apiError(404), { secrets }))).not.toMatch(/job/i);
  });

  it('404 says the id is unknown or belongs to another user', () => {
    const text = textOf(toolError(apiError(404), { secrets, hints: { jobId: 'job_9' } }));
    expect(text).toMatch(/HTTP 404: job job_9 is unknown or belongs to another user/);
  });

  it.each([
    [400, /HTTP 400: the platform rejected the request as invalid \(platform said: bad receipt\)/],
    [403, /HTTP 403: this feature is not available/],
    [429, /HTTP 429: too many requests/],
    [500, /HTTP 500: the platform failed/],
    [503, /HTTP 503: the platform is temporarily unavailable/],
  ])('HTTP %i gets an actionable text', (status, pattern) => {
    expect(
      textOf(toolError(apiError(status, status === 400 ? 'bad receipt' : undefined), { secrets })),
    ).toMatch(pattern);
  });

  it('passes validation and configuration messages through', () => {
    expect(textOf(toolError(new ValidationError('the file is empty'), { secrets }))).toBe(
      'invalid input: the file is empty',
    );
    expect(
      textOf(toolError(new ConfigError('POLYMODAL_BASE_URL', 'POLYMODAL_BASE_URL is not set.'), { secrets })),
    ).toBe('configuration error: POLYMODAL_BASE_URL is not set.');
  });

  it('reports a failed job with its errorMessage', () => {
    const error = new JobFailedError({
      service: 'meeting',
      jobId: 'j1',
      status: 'FAILED',
      errorMessage: 'no audio',
    });
    expect(textOf(toolError(error, { secrets }))).toMatch(/^job j1 ended FAILED: no audio\./);
  });

  it('reports connection problems and whether the request may have arrived', () => {
    const error = new ConnectionError('connect ECONNREFUSED 127.0.0.1:1', { requestMayHaveArrived: false });
    expect(textOf(toolError(error, { secrets }))).toMatch(
      /^could not reach the platform: .*POLYMODAL_BASE_URL/,
    );
  });

  it('turns unknown errors into a generic internal error without a stack', () => {
    const error = new TypeError(`boom while using ${KEY}`);
    const text = textOf(toolError(error, { secrets }));
    expect(text).toBe('internal error: boom while using ***');
    expect(text).not.toContain('at ');
    expect(textOf(toolError('plain string', { secrets }))).toBe('internal error: plain string');
  });

  it('never shows the paths of the server in a system error (EMFILE reading the state directory)', async () => {
    const missing = await readFile('/nonexistent-polymodal-state/jobs/entries/meeting/a.json').catch(
      (e) => e,
    );
    const emfile = Object.assign(
      new Error("EMFILE: too many open files, open '/srv/polymodal/state/jobs/x.json'"),
      {
        code: 'EMFILE',
        syscall: 'open',
        path: '/srv/polymodal/state/jobs/x.json',
      },
    );
    expect(textOf(toolError(emfile, { secrets }))).toBe(
      "internal error: EMFILE during open on the server. Try again; if it persists, the server's operator can see the details in its log.",
    );
    const text = textOf(toolError(missing, { secrets }));
    expect(text).toMatch(/^internal error: ENOENT during open on the server/);
    expect(text).not.toContain('/nonexistent-polymodal-state');
  });

  it('redacts secrets everywhere, including api_key query values and appended hints', () => {
    const error = new Error(`GET /x?api_key=${KEY} failed`);
    const text = textOf(toolError(error, { secrets, hints: { next: `retry with ${KEY}` } }));
    expect(text).not.toContain(KEY);
  });
});
