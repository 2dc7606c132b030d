import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPolymodal } from '../client/create-polymodal.js';
import { describeIssues, listIssues } from './describe-issues.js';
import { ValidationError } from './polymodal-error.js';

const Request = z.strictObject({
  mode: z.union([z.literal('fast'), z.literal('slow')]),
  name: z.string(),
  level: z.enum(['low', 'high']),
  nested: z.strictObject({ size: z.number() }).optional(),
});

describe('describeIssues', () => {
  it('names missing fields as missing, with what they accept', () => {
    const input = {};
    const parsed = Request.safeParse(input);
    expect(parsed.success).toBe(false);
    const issues = describeIssues(parsed.error as z.ZodError, input);
    expect(issues).toEqual([
      { path: 'mode', message: 'required but missing (expected one of "fast"|"slow")' },
      { path: 'name', message: 'required but missing (expected string)' },
      { path: 'level', message: 'required but missing (expected one of "low"|"high")' },
    ]);
  });

  it('lists what a union of fixed values accepts when the value is wrong, and keeps other messages', () => {
    const input = { mode: 'medium', name: 'a', level: 'low', nested: { size: 'big' } };
    const parsed = Request.safeParse(input);
    const issues = describeIssues(parsed.error as z.ZodError, input, ['options']);
    expect(listIssues(issues)).toBe(
      'options.mode: not accepted (expected one of "fast"|"slow"); ' +
        'options.nested.size: Invalid input: expected number, received string',
    );
  });
});

describe('a client refusing a request without a required field', () => {
  it('says which field is missing and what it accepts, before anything is sent', async () => {
    // Nothing listens on port 9: a request that were sent would fail with a connection error instead.
    const polymodal = createPolymodal({ apiKey: 'test-key', baseUrl: 'http://127.0.0.1:9' });
    const refusal = polymodal.meeting.create({ uploadReceipt: 'receipt', targetLanguage: 'en' } as never);
    await expect(refusal).rejects.toSatisfy((error: unknown) => ValidationError.isInstance(error));
    await expect(refusal).rejects.toThrow(/sourceLanguage: required but missing \(expected one of "auto"\|/);
    await expect(refusal).rejects.toThrow(/nothing was sent/);
  });
});
