/**
 * The tenants file (`POLYMODAL_TENANTS_FILE`): who may call an HTTP server and with which platform key.
 *
 *   {"tenants":[{"id":"team-a","tokenSha256":"<hex>","apiKey":"<platform key, optional>",
 *                "budget":{"creditsPerDay":500}}]}
 *
 * The file holds only the sha256 of each bearer token, so reading it does not reveal a token. With OAuth
 * configured (POLYMODAL_OAUTH_ISSUER) a tenant may have no `tokenSha256`: it is then reached only with an
 * access token whose tenant claim names its id, and the file gives it its platform key. Errors name
 * the file and the field (`tenants[1].tokenSha256`) and say what to write instead; they never repeat a
 * value from the file, because a mistyped field may hold a token or a key. `budget.creditsPerDay`
 * (optional) is the most the tenant's paid calls may cost per UTC day; without it POLYMODAL_CREDITS_PER_DAY
 * applies, and without either there is no limit.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError } from '@polymodal/core/errors';
import { z } from 'zod';
import { isSafeTenantId } from './tenant-id.js';

export const TENANTS_FILE_VARIABLE = 'POLYMODAL_TENANTS_FILE';

export interface TenantConfig {
  id: string;
  /** sha256 of the bearer token, lower-case hex; absent for a tenant reached only through OAuth. */
  tokenSha256?: string;
  /** The tenant's platform key; absent means POLYMODAL_API_KEY. */
  apiKey?: string;
  /** The tenant's daily credit budget (UTC day); absent means POLYMODAL_CREDITS_PER_DAY, or no limit. */
  budget?: { creditsPerDay: number };
}

const budgetSchema = z.strictObject(
  {
    creditsPerDay: z
      .number({ error: 'must be a number of credits' })
      .int({ error: 'must be a whole number of credits' })
      .min(0, { error: 'must be 0 or more' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'is too large' }),
  },
  { error: 'must be an object {"creditsPerDay": <credits per UTC day>}' },
);

const tenantSchema = z.strictObject(
  {
    id: z.string({ error: 'must be a string' }).refine(isSafeTenantId, {
      error:
        'must be 1 to 63 characters of a-z, 0-9, "-" and "_", starting with a letter or digit (it names directories)',
    }),
    tokenSha256: z
      .string({ error: 'must be a string' })
      .regex(/^[0-9a-fA-F]{64}$/, {
        error:
          'must be the sha256 of the token as 64 hex digits (e.g. printf %s "$TOKEN" | sha256sum), not the token',
      })
      .optional(),
    apiKey: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, { error: 'must not be empty (leave it out to use POLYMODAL_API_KEY)' })
      .optional(),
    budget: budgetSchema.optional(),
  },
  {
    error: 'must be an object with id, tokenSha256 (optional with OAuth) and optionally apiKey and budget',
  },
);

const fileSchema = z.strictObject(
  { tenants: z.array(tenantSchema, { error: 'must be a list of tenants' }) },
  { error: 'must be an object {"tenants":[...]}' },
);

/** Parses and checks the file's text; throws a ConfigError naming the file and the bad field. */
export function parseTenantsFile(text: string, source: string): TenantConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The parser's own message quotes the text around the mistake, which may be a key: keep the position only.
    const position =
      error instanceof Error ? /at position \d+(?: \(line \d+ column \d+\))?/.exec(error.message) : null;
    throw invalid(source, `is not valid JSON${position ? ` (${position[0]})` : ''}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? formatPath(issue.path) : '';
    const message =
      issue?.code === 'unrecognized_keys'
        ? issue.path.at(-1) === 'budget'
          ? `has unknown field(s) ${describeKeys(issue.keys)}; a budget has creditsPerDay`
          : `has unknown field(s) ${describeKeys(issue.keys)}; a tenant has id, tokenSha256 and optionally apiKey and budget`
        : (issue?.message ?? 'is not a tenants file');
    throw invalid(source, field ? `${field}: ${message}` : message);
  }
  const tenants = parsed.data.tenants.map((tenant) => ({
    id: tenant.id,
    ...(tenant.tokenSha256 === undefined ? {} : { tokenSha256: tenant.tokenSha256.toLowerCase() }),
    ...(tenant.apiKey === undefined ? {} : { apiKey: tenant.apiKey }),
    ...(tenant.budget === undefined ? {} : { budget: { creditsPerDay: tenant.budget.creditsPerDay } }),
  }));
  const ids = new Map<string, number>();
  const hashes = new Map<string, number>();
  tenants.forEach((tenant, index) => {
    const sameId = ids.get(tenant.id);
    if (sameId !== undefined) {
      throw invalid(source, `tenants[${index}].id: "${tenant.id}" is also the id of tenants[${sameId}]`);
    }
    const sameToken = tenant.tokenSha256 === undefined ? undefined : hashes.get(tenant.tokenSha256);
    if (sameToken !== undefined) {
      // One token for two tenants would make the caller ambiguous.
      throw invalid(
        source,
        `tenants[${index}].tokenSha256: the same token as tenants[${sameToken}]; each tenant needs its own token`,
      );
    }
    ids.set(tenant.id, index);
    if (tenant.tokenSha256 !== undefined) hashes.set(tenant.tokenSha256, index);
  });
  return tenants;
}

/** Reads and parses the file; throws a ConfigError when it cannot be read or is not valid. */
export async function readTenantsFile(file: string): Promise<TenantConfig[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(file, `cannot be read${code ? ` (${code})` : ''}`);
  }
  return parseTenantsFile(text, file);
}

function invalid(source: string, problem: string): ConfigError {
  return new ConfigError(TENANTS_FILE_VARIABLE, `${TENANTS_FILE_VARIABLE} (${source}) ${problem}.`);
}

/**
 * Field names people plausibly write by mistake. Only these are repeated in an error: any other name is
 * left out, because a value pasted in the wrong place (a token, a key) can end up as a field name.
 */
const KNOWN_MISTAKES = new Set([
  'token',
  'bearer',
  'bearertoken',
  'secret',
  'hash',
  'sha256',
  'tokenhash',
  'token_sha256',
  'key',
  'apikey',
  'api_key',
  'name',
  'description',
  'comment',
  'label',
  'tenant',
  'tenantid',
  'tenant_id',
  'budget',
  'credits',
  'creditsperday',
  'credits_per_day',
  'perday',
  'daily',
  'limit',
]);

function describeKeys(keys: readonly string[]): string {
  return keys
    .map((key) => (KNOWN_MISTAKES.has(key.toLowerCase()) ? `"${key}"` : '(one whose name is not shown)'))
    .join(', ');
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}
