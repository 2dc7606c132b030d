/**
 * The McpServer's JSON Schema validator, with Ajv loaded and built on first use. The SDK gives every Server
 * an Ajv instance of its own (about 18 KiB with its formats), yet uses it only to check a client's answer to
 * an elicitation (register_voice's consent, on a client that supports it). Over Streamable HTTP every
 * request (stateless) or session builds a server, so most servers never elicit and built Ajv for nothing.
 * One Ajv per server is kept, not one per process: Ajv caches every schema object it compiles for good, and
 * elicitation schemas are written per call, so a shared instance would grow with every elicitation.
 *
 * Ajv's code (with ajv-formats and fast-uri, about 190 KiB) is not even loaded until an elicitation is sent:
 * a tool session's `elicit` (see `sdk-server.ts`) loads it first, while the request goes out, so
 * it is there when the SDK checks the answer (synchronously). The server bins are bundled without the
 * SDK's own static import of it (see scripts/tsup-server-package.mjs), which would load it at every start.
 */
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

type AjvProvider = typeof import('@modelcontextprotocol/sdk/validation/ajv');

let provider: AjvProvider | undefined;
let loading: Promise<AjvProvider> | undefined;

/** Loads Ajv (once per process); validators can be built once it has resolved. */
export function loadJsonSchemaValidator(): Promise<void> {
  loading ??= import('@modelcontextprotocol/sdk/validation/ajv').then(
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
