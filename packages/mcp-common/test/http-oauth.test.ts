/**
 * OAuth access tokens over real HTTP: a test authorization server on loopback (RFC 8414 metadata and a
 * JWKS), tokens signed with jose, the real SDK client and the sandbox as the platform. A good token reaches
 * its tenant's jobs; expired, wrong-audience, wrong-issuer, forged and unsigned tokens get 401 with the
 * protected-resource metadata in the challenge; a token without a tenant gets 403 saying why; the RFC 9728
 * document is public; bearer tenant tokens keep working beside OAuth. What a client experiences is checked
 * for both protocol generations, and a 2026-07-28 client's first request without a token gets the same
 * challenge as an `initialize`.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MEETING_SERVICE } from '@polymodal/core/constants';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformContext, type PlatformContext } from '../src/context/create-platform-context.js';
import { listJobsTool } from '../src/jobs/list-jobs-tool.js';
import { unauthenticatedBindProblem } from '../src/network/unauthenticated-bind-problem.js';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import type { ServerFactory } from '../src/runners/server-instance.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { isAuthenticationConfigured } from '../src/tenants/read-oauth-settings.js';
import { connectWithToken, INITIALIZE, JSON_HEADERS, modernRequest, rawRequest } from './support/raw-http.js';
import { tokenSha256 } from './support/serve-tenants.js';
import { GENERATIONS } from './support/server-harness.js';
import { testTools } from './support/test-tools.js';

const AUDIENCE = 'https://mcp.example.test/mcp';
const METADATA_URL = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp';
const BEARER_TOKEN_B = 'token-of-team-b-77d02e';

const createJobsServer: ServerFactory = (request) =>
  createPolymodalServer({
    name: 'jobs',
    title: 'Jobs',
    version: '1.0.0',
    instructions: 'Lists jobs.',
    deps: { platform: request?.platform },
    groups: [testTools(listJobsTool({ services: [MEETING_SERVICE] }))],
  });

/** An authorization server as far as a resource server sees one: its metadata and its public keys. */
async function startAuthorizationServer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server = http.createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/oauth-authorization-server') {
      send(200, { issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] });
    } else if (request.url === '/jwks') {
      send(200, { keys: [jwk] });
    } else {
      send(404, { error: 'not found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: JWTPayload, options: { expiresIn?: number | string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1', typ: 'at+jwt' })
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject('user-1')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(privateKey);
  return {
    issuer,
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('HTTP with OAuth access tokens', () => {
  let sandbox: Sandbox;
  let authorization: Awaited<ReturnType<typeof startAuthorizationServer>>;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;
  let built: { env: NodeJS.ProcessEnv; context: PlatformContext }[];

  const start = async (overrides: NodeJS.ProcessEnv = {}, host = '127.0.0.1') => {
    access = await createTenantAccess({
      env: { ...env, ...overrides },
      name: 'jobs',
      createContext(contextOptions) {
        const context = createPlatformContext(contextOptions);
        built.push({ env: contextOptions.env ?? {}, context });
        return context;
      },
    });
    handle = await runHttpServer(createJobsServer, { port: 0, host, access, probe: false });
    return handle;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
    authorization = await startAuthorizationServer();
  });
  afterAll(async () => {
    await authorization?.close();
    await sandbox?.close();
  });
  beforeEach(async () => {
    built = [];
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-oauth-'));
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [
          // Reached only with an access token naming it.
          { id: 'team-a', apiKey: sandbox.apiKey },
          // Reached with its bearer token (and with an access token naming it).
          { id: 'team-b', tokenSha256: tokenSha256(BEARER_TOKEN_B), apiKey: sandbox.apiKey2 },
        ],
      }),
    );
    env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_OAUTH_ISSUER: authorization.issuer,
      POLYMODAL_OAUTH_AUDIENCE: AUDIENCE,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
  });
  afterEach(async () => {
    await handle?.close();
    await access?.close();
    handle = undefined;
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  describe.each(GENERATIONS)('a %s client', (generation) => {
    it("serves a valid access token its tenant's jobs, and bearer tenant tokens still work beside OAuth", async () => {
      const { url } = await start();
      const tokenA = await authorization.sign({ tenant: 'team-a' });
      const clientA = await connectWithToken(url, tokenA, 'team-a', generation);
      expect((await clientA.callTool({ name: 'list_jobs', arguments: {} })).structuredContent).toMatchObject({
        count: 0,
      });
      // A job recorded for team-a shows in team-a's list_jobs only.
      const teamA = built.find((entry) => entry.env.POLYMODAL_STATE_DIR?.endsWith(`${path.sep}team-a`));
      await teamA?.context.ledger.insert({
        service: MEETING_SERVICE,
        fingerprint: 'recording-of-team-a',
        id: 'job-of-team-a',
        lastStatus: 'PENDING',
      });
      const listedA = await clientA.callTool({ name: 'list_jobs', arguments: {} });
      expect(listedA.structuredContent).toMatchObject({ count: 1, jobs: [{ jobId: 'job-of-team-a' }] });
      await clientA.close();

      const clientB = await connectWithToken(url, BEARER_TOKEN_B, 'team-b', generation);
      const listedB = await clientB.callTool({ name: 'list_jobs', arguments: {} });
      expect(listedB.structuredContent).toMatchObject({ count: 0, jobs: [] });
      await clientB.close();

      expect(
        built.map((entry) => [
          path.basename(entry.env.POLYMODAL_STATE_DIR ?? ''),
          entry.env.POLYMODAL_API_KEY,
        ]),
      ).toEqual([
        ['team-a', sandbox.apiKey],
        ['team-b', sandbox.apiKey2],
      ]);
    });
  });

  it('refuses expired, wrong-audience, wrong-issuer, forged and unsigned tokens with 401 naming the metadata', async () => {
    const { url, port } = await start();
    const host = { host: `127.0.0.1:${port}` };
    const now = Math.floor(Date.now() / 1000);
    const forger = await generateKeyPair('ES256');
    const good = await authorization.sign({ tenant: 'team-a' });
    const [header, , signature] = good.split('.');
    const cases: [string, string, RegExp][] = [
      ['expired', await authorization.sign({ tenant: 'team-a' }, { expiresIn: now - 120 }), /expired/],
      [
        'another audience',
        await authorization.sign({ tenant: 'team-a', aud: 'https://other.example.test/mcp' }),
        /another resource/,
      ],
      [
        'another issuer',
        await authorization.sign({ tenant: 'team-a', iss: 'https://issuer.example.test' }),
        /another authorization server/,
      ],
      [
        'a forged signature',
        await new SignJWT({ tenant: 'team-a' })
          .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
          .setIssuer(authorization.issuer)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(forger.privateKey),
        /signature/,
      ],
      [
        'a signature taken from another token',
        `${header}.${base64url({ tenant: 'team-b', iss: authorization.issuer, aud: AUDIENCE, exp: now + 300 })}.${signature}`,
        /signature/,
      ],
      [
        'alg none',
        `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ tenant: 'team-a', iss: authorization.issuer, aud: AUDIENCE, exp: now + 300 })}.`,
        /algorithm|not a valid/,
      ],
      [
        'an HMAC signature',
        await new SignJWT({ tenant: 'team-a' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(authorization.issuer)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!')),
        /algorithm/,
      ],
    ];
    for (const [what, token, reason] of cases) {
      const refused = await rawRequest(
        url,
        { ...JSON_HEADERS, ...host, authorization: `Bearer ${token}` },
        INITIALIZE,
      );
      expect(refused.status, what).toBe(401);
      expect(refused.headers['www-authenticate'], what).toContain(`resource_metadata="${METADATA_URL}"`);
      expect(refused.headers['www-authenticate'], what).toContain('error="invalid_token"');
      expect(JSON.parse(refused.body).error.message, what).toMatch(reason);
      expect(refused.body, what).not.toContain(token);
    }
    for (const generation of GENERATIONS) {
      await expect(
        connectWithToken(url, cases[0]?.[1] ?? '', 'expired', generation),
        generation,
      ).rejects.toThrow(/401|unauthorized/i);
    }

    const missing = await rawRequest(url, { ...JSON_HEADERS, ...host }, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(
      `Bearer realm="polymodal", resource_metadata="${METADATA_URL}"`,
    );
    expect(JSON.parse(missing.body).error.message).toContain(authorization.issuer);
    // A 2026-07-28 client's first request (server/discover) without a token: the same 401, challenge and body.
    const discover = modernRequest('server/discover');
    const missingModern = await rawRequest(url, { ...discover.headers, ...host }, discover.body);
    expect(missingModern.status).toBe(401);
    expect(missingModern.headers['www-authenticate']).toBe(missing.headers['www-authenticate']);
    expect(JSON.parse(missingModern.body)).toEqual(JSON.parse(missing.body));
    // Nobody got in: no tenant context was built.
    expect(built).toEqual([]);
  });

  it('refuses with 403 and its reason a valid token without a tenant claim, or for a tenant not served here', async () => {
    const { url, port } = await start();
    const host = { host: `127.0.0.1:${port}` };
    const noTenant = await authorization.sign({ scope: 'mcp' });
    const refused = await rawRequest(
      url,
      { ...JSON_HEADERS, ...host, authorization: `Bearer ${noTenant}` },
      INITIALIZE,
    );
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(/no "tenant" claim naming a tenant/);

    const unlisted = await authorization.sign({ tenant: 'team-z' });
    const other = await rawRequest(
      url,
      { ...JSON_HEADERS, ...host, authorization: `Bearer ${unlisted}` },
      INITIALIZE,
    );
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body).error.message).toMatch(/tenant "team-z" is not served here/);

    const unsafe = await authorization.sign({ tenant: '../team-a' });
    const traversal = await rawRequest(
      url,
      { ...JSON_HEADERS, ...host, authorization: `Bearer ${unsafe}` },
      INITIALIZE,
    );
    expect(traversal.status).toBe(403);
    expect(built).toEqual([]);
  });

  it.each(GENERATIONS)(
    'a %s client: reads the tenant from the configured claim, and serves unlisted tenants with POLYMODAL_API_KEY only when asked to',
    async (generation) => {
      const { url } = await start({
        POLYMODAL_OAUTH_TENANT_CLAIM: 'org_id',
        POLYMODAL_OAUTH_ANY_TENANT: '1',
        POLYMODAL_API_KEY: sandbox.apiKey2,
      });
      const client = await connectWithToken(
        url,
        await authorization.sign({ org_id: 'team-z', tenant: 'team-a' }),
        'team-z',
        generation,
      );
      expect((await client.callTool({ name: 'list_jobs', arguments: {} })).isError).toBeFalsy();
      await client.close();
      expect(
        built.map((entry) => [
          path.basename(entry.env.POLYMODAL_STATE_DIR ?? ''),
          entry.env.POLYMODAL_API_KEY,
        ]),
      ).toEqual([['team-z', sandbox.apiKey2]]);
    },
  );

  it('publishes the RFC 9728 metadata without authentication, at the root and endpoint-suffixed addresses', async () => {
    const { port } = await start();
    const expected = {
      resource: AUDIENCE,
      authorization_servers: [authorization.issuer],
      bearer_methods_supported: ['header'],
    };
    for (const address of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const document = await rawRequest(`http://127.0.0.1:${port}${address}`, { host: `127.0.0.1:${port}` });
      expect(document.status, address).toBe(200);
      expect(document.headers['content-type']).toBe('application/json');
      expect(JSON.parse(document.body), address).toEqual(expected);
      expect(document.body).not.toContain(sandbox.apiKey);
    }
  });

  it('counts OAuth alone as authentication off loopback: no refusal to bind 0.0.0.0', async () => {
    const oauthOnly = {
      POLYMODAL_OAUTH_ISSUER: authorization.issuer,
      POLYMODAL_OAUTH_AUDIENCE: AUDIENCE,
    };
    expect(isAuthenticationConfigured(oauthOnly)).toBe(true);
    expect(unauthenticatedBindProblem('0.0.0.0', isAuthenticationConfigured(oauthOnly))).toBeUndefined();
    expect(unauthenticatedBindProblem('0.0.0.0', isAuthenticationConfigured({}))).toMatch(
      /POLYMODAL_OAUTH_ISSUER/,
    );
    const { POLYMODAL_TENANTS_FILE: _file, ...withoutFile } = env;
    env = withoutFile;
    const served = await start(
      { POLYMODAL_OAUTH_ANY_TENANT: '1', POLYMODAL_API_KEY: sandbox.apiKey },
      '0.0.0.0',
    );
    expect(served.port).toBeGreaterThan(0);
  });
});
