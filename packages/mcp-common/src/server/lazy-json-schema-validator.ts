/**
 * The McpServer's JSON Schema validator, built on first use. The SDK gives every Server an Ajv instance of its
 * own (about 18 KiB with its formats), yet uses it only to check a client's answer to an elicitation
 * (register_voice's consent, on a client that supports it). Over Streamable HTTP every request (stateless)
 * or session builds a server, so most servers never elicit and built Ajv for nothing. One Ajv per server is
 * kept, not one per process: Ajv caches every schema object it compiles for good, and elicitation schemas
 * are written per call, so a shared instance would grow with every elicitation.
 */

import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private validator: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.validator ??= new AjvJsonSchemaValidator();
    return this.validator.getValidator<T>(schema);
  }

  /** Whether the Ajv instance was built (for tests). */
  get built(): boolean {
    return this.validator !== undefined;
  }
}
