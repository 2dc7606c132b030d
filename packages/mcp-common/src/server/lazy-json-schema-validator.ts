/**
 * A JSON Schema validator with Ajv loaded and built on first use. The SDK builds an Ajv instance for every
 * server unless given a validator (about 18 KiB with its formats), and over Streamable HTTP every request
 * (stateless) or session builds a server: so each server gets this one, which builds nothing until asked.
 * The installer (`sdk-server.ts`) checks a client's answer to a question (register_voice's consent) with
 * one of its own, since the SDK no longer checks answers against the requested schema. One Ajv per server is
 * kept, not one per process: Ajv caches every schema object it compiles for good, and question schemas are
 * written per call, so a shared instance would grow with every question.
 *
 * Ajv's code (with ajv-formats and fast-uri, about 190 KiB) is not even loaded until a question is asked or
 * answered (`loadJsonSchemaValidator`). The server bins are bundled without the SDK's own static import of it
 * (see scripts/tsup-server-package.mjs), which would load it at every start.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';

type AjvProvider = typeof import('@modelcontextprotocol/server/validators/ajv');

let provider: AjvProvider | undefined;
let loading: Promise<AjvProvider> | undefined;

/** Loads Ajv (once per process); validators can be built once it has resolved. */
export function loadJsonSchemaValidator(): Promise<void> {
  loading ??= import('@modelcontextprotocol/server/validators/ajv').then(
    (loaded) => {
      provider = loaded;
      return loaded;
    },
    (error: unknown) => {
      // Tried again by the next elicitation.
      loading = undefined;
      throw error;
    },
  );
  return loading.then(() => undefined);
}

export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private validator: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (!provider) {
      throw new Error(
        'The JSON Schema validator is not loaded yet: await loadJsonSchemaValidator() before checking a schema.',
      );
    }
    this.validator ??= new provider.AjvJsonSchemaValidator();
    return this.validator.getValidator<T>(schema);
  }

  /** Whether the Ajv instance was built (for tests). */
  get built(): boolean {
    return this.validator !== undefined;
  }
}
