/**
 * Completion of a prompt's arguments (`completion/complete`): what a host offers while a person types one
 * (VS Code asks for each argument in a quick pick and completes it). A source is data beside the prompt, run
 * by the installer with the server instance's dependencies, so over HTTP it reads the caller's tenant: its
 * ledger, its readable directories. A source never pays, never uploads, and answers within the host's typing
 * budget: what it cannot find quickly it leaves out.
 */
import { z } from 'zod';

/** One completion request, as a source sees it. */
export interface CompletionRequest<D> {
  /** What the person has typed of the argument so far. */
  readonly value: string;
  /** The prompt's arguments the person already gave (the host's `context.arguments`). */
  readonly arguments: Readonly<Record<string, string>>;
  readonly deps: D;
  /** Aborted when the host cancels, goes away or the completion's time is up. */
  readonly signal: AbortSignal;
  /** Whether the request came over HTTP: then no value may name a path of the server. */
  readonly overHttp: boolean;
}

/** What a source offers: values in the order to show them, and whether it left some out. */
export interface Completion {
  readonly values: readonly string[];
  readonly hasMore?: boolean;
}

export type CompletionSource<D> = (request: CompletionRequest<D>) => Completion | Promise<Completion>;

/** The most values one answer holds (the protocol's limit). */
export const MAX_COMPLETION_VALUES = 100;

/**
 * The candidates that start with what was typed (letter case aside), in their order, at most
 * `MAX_COMPLETION_VALUES` of them.
 */
export function matching(candidates: Iterable<string>, typed: string): Completion {
  const prefix = typed.toLowerCase();
  const values: string[] = [];
  for (const candidate of candidates) {
    if (!candidate.toLowerCase().startsWith(prefix)) continue;
    if (values.length === MAX_COMPLETION_VALUES) return { values, hasMore: true };
    values.push(candidate);
  }
  return { values };
}

/** A source offering fixed values (languages, learning directions), those that start with what was typed. */
export function oneOf(values: readonly string[]): CompletionSource<unknown> {
  return ({ value }) => matching(values, value);
}

/** The values an argument's schema allows, when it is an enum (optional or not). */
export function enumValuesOf(schema: z.ZodType): readonly string[] | undefined {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
  return inner instanceof z.ZodEnum ? (inner.options as string[]) : undefined;
}
