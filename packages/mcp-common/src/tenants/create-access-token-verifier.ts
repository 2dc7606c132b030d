/**
 * Checks OAuth 2.1 access tokens (JWTs) of the configured authorization server, with `jose`.
 *
 * The issuer's metadata is read once, on the first token (RFC 8414 `/.well-known/oauth-authorization-server`,
 * then OpenID Connect's `/.well-known/openid-configuration`), and must name the configured issuer; its
 * `jwks_uri` gives the signing keys, which `jose` caches and refetches when a token names an unknown key
 * (key rotation). A token is accepted only if it is signed by one of those keys with an asymmetric
 * algorithm (never `none`, never an HMAC, whose secret a public key set cannot hold), its `iss` is the
 * issuer, its `aud` contains this server's resource URI, it has an `exp` that has not passed (30 s of clock
 * tolerance), and its tenant claim names a tenant id we accept.
 *
 * The token is never logged, stored or passed on; the reasons returned never quote it.
 */
import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { isSecureUrl, type OAuthSettings } from './read-oauth-settings.js';
import { isSafeTenantId } from './tenant-id.js';

/** Asymmetric algorithms only: a public key set can verify these, and only these. */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Seconds of clock difference tolerated on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export type AccessTokenResult =
  | { ok: true; tenantId: string }
  /** The token is not one of ours (bad signature, expired, wrong issuer or audience): 401. */
  | { ok: false; reason: 'invalid_token'; message: string }
  /** A valid token that does not name a tenant we serve: 403, a new token would not help. */
  | { ok: false; reason: 'forbidden'; message: string }
  /** The authorization server's metadata or keys could not be read: 503, try again. */
  | { ok: false; reason: 'unavailable'; message: string };

export interface AccessTokenVerifier {
  verify(token: string): Promise<AccessTokenResult>;
}

export interface AccessTokenVerifierOptions {
  /** Used for the metadata documents (tests); default the global fetch. */
  fetch?: typeof fetch;
  /** Upper bound on one metadata or key set request (default 5 s). */
  timeoutMs?: number;
}

/** Whether a bearer token has the shape of a JWS compact serialization (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

export function createAccessTokenVerifier(
  settings: OAuthSettings,
  options: AccessTokenVerifierOptions = {},
): AccessTokenVerifier {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let keys: Promise<JWTVerifyGetKey> | undefined;

  const discoverKeys = async (): Promise<JWTVerifyGetKey> => {
    const jwksUri = await discoverJwksUri(settings.issuer, fetchImpl, timeoutMs);
    return createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: timeoutMs });
  };

  return {
    async verify(token) {
      // A failed discovery is not kept: the next request tries again.
      keys ??= discoverKeys().catch((error: unknown) => {
        keys = undefined;
        throw error;
      });
      let getKey: JWTVerifyGetKey;
      try {
        getKey = await keys;
      } catch (error) {
        return {
          ok: false,
          reason: 'unavailable',
          message: `cannot check access tokens now: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      let claims: Record<string, unknown>;
      try {
        const verified = await jwtVerify(token, getKey, {
          issuer: settings.issuer,
          audience: settings.audience,
          algorithms: ACCEPTED_ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp'],
        });
        claims = verified.payload;
      } catch (error) {
        if (error instanceof errors.JWKSTimeout || isKeySetFetchFailure(error)) {
          return {
            ok: false,
            reason: 'unavailable',
            message: "cannot read the authorization server's keys now",
          };
        }
        return { ok: false, reason: 'invalid_token', message: describeRejection(error) };
      }
      const tenant = claims[settings.tenantClaim];
      if (typeof tenant !== 'string' || tenant === '') {
        return {
          ok: false,
          reason: 'forbidden',
          message: `the access token has no "${settings.tenantClaim}" claim naming a tenant; ask the authorization server's administrator to add it`,
        };
      }
      if (!isSafeTenantId(tenant)) {
        return {
          ok: false,
          reason: 'forbidden',
          message: `the access token's "${settings.tenantClaim}" claim is not a tenant id this server accepts (1 to 63 characters of a-z, 0-9, "-" and "_")`,
        };
      }
      return { ok: true, tenantId: tenant };
    },
  };
}

/** The issuer's `jwks_uri`, from its RFC 8414 metadata or else its OpenID Connect configuration. */
async function discoverJwksUri(issuer: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<string> {
  const url = new URL(issuer);
  const issuerPath = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [
    // RFC 8414 §3.1: the well-known part goes between the host and the issuer's path.
    `${url.origin}/.well-known/oauth-authorization-server${issuerPath}`,
    // OpenID Connect Discovery §4: appended to the issuer.
    `${url.origin}${issuerPath}/.well-known/openid-configuration`,
  ];
  const problems: string[] = [];
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await fetchImpl(candidate, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      problems.push(`${candidate}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      problems.push(`${candidate}: HTTP ${response.status}`);
      continue;
    }
    let metadata: { issuer?: unknown; jwks_uri?: unknown };
    try {
      metadata = (await response.json()) as typeof metadata;
    } catch {
      problems.push(`${candidate}: not JSON`);
      continue;
    }
    // RFC 8414 §3.3: metadata naming another issuer must not be used (it could hand out its own keys).
    if (metadata.issuer !== issuer) {
      problems.push(`${candidate}: names another issuer`);
      continue;
    }
    if (typeof metadata.jwks_uri !== 'string' || !isSecureUrl(metadata.jwks_uri)) {
      problems.push(`${candidate}: no https jwks_uri`);
      continue;
    }
    return metadata.jwks_uri;
  }
  throw new Error(`the authorization server's metadata could not be read (${problems.join('; ')})`);
}

function isKeySetFetchFailure(error: unknown): boolean {
  // jose reports a key set it could not download as a plain error from fetch, not a JOSE error.
  return !(error instanceof errors.JOSEError) && error instanceof Error;
}

/** Why a token was refused, in words a client's developer can act on, without quoting the token. */
function describeRejection(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'the access token was issued by another authorization server';
    if (error.claim === 'aud') return 'the access token was issued for another resource (audience)';
    if (error.claim === 'exp') return 'the access token has no expiry';
    return `the access token's "${error.claim}" claim is not valid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'the access token is not signed with an accepted algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return "the access token's signature does not match the authorization server's keys";
  }
  return 'the access token is not a valid JWT';
}
