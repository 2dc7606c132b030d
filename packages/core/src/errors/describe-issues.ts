/**
 * Schema failures in words a caller can act on. zod's own messages are written for a developer reading a
 * stack trace: a missing field of a union says only "Invalid input", and a missing string "expected string,
 * received undefined". Every client turns a failed request check into a ValidationError through here, so a
 * missing field is named as missing, and a union of fixed values lists the values it accepts.
 */
import type { z } from 'zod';

export interface FieldIssue {
  /** Dotted path of the field, e.g. `voice_settings.speed`; empty for the request itself. */
  path: string;
  message: string;
}

const ZOD_PREFIX = /^Invalid (?:input|option): /;

/** The value at `path` inside `input`, or undefined when any step of the path is absent. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The fixed values a union accepts, when every branch is one (`'auto'` or one of the languages). */
function unionValues(issue: z.core.$ZodIssue): unknown[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const values: unknown[] = [];
  for (const branch of issue.errors) {
    if (branch.length !== 1) return undefined;
    const [only] = branch;
    if (only?.code !== 'invalid_value') return undefined;
    values.push(...only.values);
  }
  return values;
}

function oneOf(values: readonly unknown[]): string {
  return `expected one of ${values.map((value) => JSON.stringify(value)).join('|')}`;
}

function describe(issue: z.core.$ZodIssue, input: unknown): string {
  const values = unionValues(issue);
  const expected = values
    ? oneOf(values)
    : issue.message.replace(ZOD_PREFIX, '').replace(/, received undefined$/, '');
  const missing =
    issue.path.length > 0 &&
    valueAt(input, issue.path) === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union');
  if (missing) return `required but missing (${expected})`;
  return values ? `not accepted (${expected})` : issue.message;
}

/**
 * The issues of a failed parse of `input`, one per field. `prefix` is prepended to every path when the
 * schema checked a part of a larger request (e.g. `['scoringOptions']`).
 */
export function describeIssues(
  error: z.ZodError,
  input: unknown,
  prefix: readonly string[] = [],
): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join('.'),
    message: describe(issue, input),
  }));
}

/** `a: required but missing (…); b: …` — the issues as one line of a message. */
export function listIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}
