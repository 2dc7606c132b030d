/**
 * Saved outputs as MCP resources over real HTTP, with the real SDK client and two tenants: a tool's
 * output is linked as `polymodal://outputs/<name>` (the file:// link to the server's disk is dropped over
 * HTTP), readable with `resources/read` by its tenant only (the other tenant's name resolves inside the
 * caller's own directory and is not found), listed per tenant, and a file over the cap is refused with a
 * message naming the cap and the platform's URL. What else lands in an output directory (a FIFO, a link or
 * a hard link to a file outside) is neither listed nor served, and never holds a thread of the pool. Every
 * test runs for clients of both protocol generations.
 */

import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { link, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult, Client, ResourceLink } from '@modelcontextprotocol/client';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputLink } from '../src/outputs/output-link.js';
import { MAX_OUTPUT_RESOURCE_BYTES } from '../src/outputs/output-resources.js';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import type { ServerFactory } from '../src/runners/server-instance.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { defineTool } from '../src/tools/define-tool.js';
import type { ToolDeps } from '../src/tools/tool-deps.js';
import { connectWithToken } from './support/raw-http.js';
import { tokenSha256 } from './support/serve-tenants.js';
import { GENERATIONS } from './support/server-harness.js';
import { testTools } from './support/test-tools.js';

const TOKEN_A = 'token-of-team-a-6d21f0';
const TOKEN_B = 'token-of-team-b-93ac4e';

/** A server with one tool that saves a note (or a big file) in the caller's output directory. */
const createNotesServer: ServerFactory = (request) =>
  createPolymodalServer({
    name: 'notes',
    title: 'Notes',
    version: '1.0.0',
    instructions: 'Saves notes.',
    deps: { platform: request?.platform },
    groups: [
      testTools(
        defineTool({
          name: 'save_note',
          title: 'Save a note',
          description: 'Saves a note.',
          inputSchema: { name: z.string(), text: z.string(), bigBytes: z.number().optional() },
          annotations: {},
          handler: (tools: ToolDeps) => async (args) => {
            const data = args.bigBytes === undefined ? args.text : Buffer.alloc(args.bigBytes, 0x61);
            const saved = await tools.platform.files.writeOutput(args.name, data);
            return {
              content: [
                { type: 'text' as const, text: `Saved to ${saved}.` },
                outputLink(saved, {
                  mimeType: 'text/markdown',
                  description: 'Note',
                  platformUrl: `https://platform.example/files/${args.name}`,
                }),
              ],
              structuredContent: { savedPath: saved },
            };
          },
        }),
      ),
    ],
  });

describe.each(GENERATIONS)(
  'saved outputs as resources over HTTP, per tenant, to %s clients',
  (generation) => {
    let sandbox: Sandbox;
    let root: string;
    let access: TenantAccess | undefined;
    let handle: HttpServerHandle | undefined;
    const clients: Client[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox({ speed: 100 });
    });
    afterAll(async () => {
      await sandbox?.close();
    });
    beforeEach(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'mcp-outputs-'));
      const tenantsFile = path.join(root, 'tenants.json');
      await writeFile(
        tenantsFile,
        JSON.stringify({
          tenants: [
            { id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey },
            { id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 },
          ],
        }),
      );
      const env = {
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_TENANTS_FILE: tenantsFile,
        POLYMODAL_STATE_DIR: path.join(root, 'state'),
        POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
        POLYMODAL_LOG_LEVEL: 'error',
      };
      access = await createTenantAccess({ env, name: 'notes' });
      handle = await runHttpServer(createNotesServer, { port: 0, access });
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await handle?.close();
      await access?.close();
      handle = undefined;
      access = undefined;
      await rm(root, { recursive: true, force: true });
    });

    const connect = async (token: string) => {
      const client = await connectWithToken(handle?.url ?? '', token, 'notes-client', generation);
      clients.push(client);
      return client;
    };

    it("links A's output as a resource A can read, B cannot, and each tenant lists only its own", async () => {
      const teamA = await connect(TOKEN_A);
      const teamB = await connect(TOKEN_B);
      const result = (await teamA.callTool({
        name: 'save_note',
        arguments: { name: 'minutes.md', text: '# Minutes\n\nShip it.\n' },
      })) as CallToolResult;
      const links = result.content.filter((item): item is ResourceLink => item.type === 'resource_link');
      // The text and the structured result name the resource, not the server's path to the file.
      expect(result.content[0]).toEqual({ type: 'text', text: 'Saved to polymodal://outputs/minutes.md.' });
      expect(result.structuredContent).toEqual({ savedPath: 'polymodal://outputs/minutes.md' });
      // Over HTTP only the resource link: a file:// URI would name the server's disk.
      expect(links).toEqual([
        {
          type: 'resource_link',
          uri: 'polymodal://outputs/minutes.md',
          name: 'minutes.md',
          mimeType: 'text/markdown',
          description: 'Note',
        },
      ]);

      const read = await teamA.readResource({ uri: 'polymodal://outputs/minutes.md' });
      expect(read.contents).toEqual([
        { uri: 'polymodal://outputs/minutes.md', mimeType: 'text/markdown', text: '# Minutes\n\nShip it.\n' },
      ]);
      await expect(teamB.readResource({ uri: 'polymodal://outputs/minutes.md' })).rejects.toThrow(
        /Resource not found: polymodal:\/\/outputs\/minutes\.md/,
      );

      const listedA = await teamA.listResources();
      expect(listedA.resources.map((resource) => resource.uri)).toEqual(['polymodal://outputs/minutes.md']);
      const listedB = await teamB.listResources();
      expect(listedB.resources).toEqual([]);
    });

    it('refuses names that try to leave the output directory', async () => {
      const teamA = await connect(TOKEN_A);
      const teamB = await connect(TOKEN_B);
      await teamA.callTool({ name: 'save_note', arguments: { name: 'minutes.md', text: 'x' } });
      await teamB.callTool({ name: 'save_note', arguments: { name: 'minutes.md', text: 'of team b' } });
      await writeFile(path.join(root, 'secret.txt'), 'not an output');
      // A link planted in A's output directory does not lead out of it either.
      await symlink(path.join(root, 'secret.txt'), path.join(root, 'out', 'team-a', 'link.txt'));
      for (const uri of [
        'polymodal://outputs/..%2F..%2Fsecret.txt',
        'polymodal://outputs/link.txt',
        'polymodal://outputs/%2Fetc%2Fpasswd',
        'polymodal://outputs/..',
        'polymodal://outputs/..%2Fteam-b%2Fminutes.md',
      ]) {
        await expect(teamA.readResource({ uri }), uri).rejects.toThrow(/not found/);
      }
    });

    it('answers a read of a FIFO in the output directory at once, lists it nowhere, and keeps file operations free', async () => {
      const teamA = await connect(TOKEN_A);
      const teamB = await connect(TOKEN_B);
      await teamA.callTool({ name: 'save_note', arguments: { name: 'minutes.md', text: 'of team a' } });
      await teamB.callTool({ name: 'save_note', arguments: { name: 'minutes.md', text: 'of team b' } });
      const fifo = path.join(root, 'out', 'team-a', 'live.md');
      execFileSync('mkfifo', [fifo]);
      try {
        // As many reads as the thread pool has threads (4): an open that waited for a writer would take them all.
        // The timeout is only there so that such a regression fails here rather than hanging the run.
        const reads = await Promise.allSettled(
          Array.from({ length: 4 }, () =>
            teamA.readResource({ uri: 'polymodal://outputs/live.md' }, { timeout: 20_000 }),
          ),
        );
        expect(reads.map((read) => (read.status === 'rejected' ? String(read.reason) : 'served'))).toEqual(
          Array.from({ length: 4 }, () =>
            expect.stringMatching(/Resource not found: polymodal:\/\/outputs\/live\.md/),
          ),
        );
        // Every tenant's file operations go on: a write, and a read of another tenant.
        await teamA.callTool({ name: 'save_note', arguments: { name: 'after.md', text: 'still served' } });
        expect((await teamA.readResource({ uri: 'polymodal://outputs/after.md' })).contents).toEqual([
          { uri: 'polymodal://outputs/after.md', mimeType: 'text/markdown', text: 'still served' },
        ]);
        expect((await teamB.readResource({ uri: 'polymodal://outputs/minutes.md' })).contents).toHaveLength(
          1,
        );
        const listed = await teamA.listResources();
        expect(listed.resources.map((resource) => resource.name).sort()).toEqual(['after.md', 'minutes.md']);
      } finally {
        // Frees any reader a regression left waiting on the FIFO (no reader: ENXIO, nothing to free).
        // Synchronous, on this thread: a regression would have taken every thread of the pool.
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // Nobody was waiting.
        }
      }
    }, 60_000);

    it('neither lists nor serves a link or a hard link that leads to a file outside the output directory', async () => {
      const teamA = await connect(TOKEN_A);
      await teamA.callTool({ name: 'save_note', arguments: { name: 'minutes.md', text: 'x' } });
      const secret = path.join(root, 'secret.txt');
      await writeFile(secret, 'a file of the server, not an output: '.repeat(100));
      await symlink(secret, path.join(root, 'out', 'team-a', 'link.txt'));
      await link(secret, path.join(root, 'out', 'team-a', 'hard.txt'));
      const listed = await teamA.listResources();
      expect(listed.resources.map((resource) => resource.name)).toEqual(['minutes.md']);
      for (const uri of ['polymodal://outputs/link.txt', 'polymodal://outputs/hard.txt']) {
        await expect(teamA.readResource({ uri }), uri).rejects.toThrow(/not found/);
      }
    });

    it('refuses an output over the cap, naming the cap and the platform URL', async () => {
      const teamA = await connect(TOKEN_A);
      await teamA.callTool({
        name: 'save_note',
        arguments: { name: 'huge.md', text: '', bigBytes: MAX_OUTPUT_RESOURCE_BYTES + 1 },
      });
      await expect(teamA.readResource({ uri: 'polymodal://outputs/huge.md' })).rejects.toThrow(
        /huge\.md is 7340033 bytes, over the 7 MiB limit of resources\/read; download it from the platform instead: https:\/\/platform\.example\/files\/huge\.md/,
      );
    });
  },
);
