/**
 * Tenants that share one platform key share its custom voices on the platform, so the server keeps them
 * apart: over real HTTP against the sandbox, a tenant speaks in a voice only when it registered that voice
 * itself. Another tenant's cloneAudio is refused before any speech request (counted at the sandbox).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serveTenants, startSandboxAndRoot, teamTenants } from '@polymodal/mcp-common/testing';
import { synthesizeVoice } from '@polymodal/sandbox';
import { afterEach, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKENS = { a: 'voices-a-token-5d21', b: 'voices-b-token-8e4c' };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

it('a tenant sharing the key never speaks in a voice another tenant registered; its own voice works', async () => {
  const { sandbox, root, mediaDir, close } = await startSandboxAndRoot('mcp-media-shared-voices-', {
    speed: 100,
  });
  cleanups.push(close);
  // Neither tenant has a key of its own: both use POLYMODAL_API_KEY.
  const server = await serveTenants({
    sandbox,
    root,
    mediaDir,
    tenants: teamTenants(TOKENS),
    createServer: (options) => createServer(options as Parameters<typeof createServer>[0]),
    secrets: Object.values(TOKENS),
  });
  cleanups.push(() => server.close());
  const connect = server.connect;
  const teamA = await connect(TOKENS.a);
  const teamB = await connect(TOKENS.b);

  const owner = path.join(mediaDir, 'owner.wav');
  await writeFile(owner, synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 }));
  const registered = await teamA('register_voice', {
    audioPath: owner,
    consent: true,
    transcript: 'This is my voice.',
  });
  expect(registered.isError, registered.text).toBe(false);
  const cloneAudio = registered.structured.cloneAudio as string;

  const speechPosts = () => sandbox.control.requests({ method: 'POST', path: '/audio/speech$' }).length;
  const refused = await teamB('synthesize_speech', {
    text: 'Said in her voice.',
    voice: cloneAudio,
    waitSeconds: 30,
  });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain(`voice ${cloneAudio} was not registered by this tenant`);
  expect(speechPosts()).toBe(0);
  // Its voice list is its own too.
  expect((await teamB('list_voices')).structured.voices).toEqual([]);

  const spoken = await teamA('synthesize_speech', {
    text: 'Said in my voice.',
    voice: cloneAudio,
    waitSeconds: 30,
  });
  expect(spoken.isError, spoken.text).toBe(false);
  expect(spoken.structured.done).toBe(true);
  expect(speechPosts()).toBe(1);
}, 60_000);
