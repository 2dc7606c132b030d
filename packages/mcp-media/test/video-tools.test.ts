/**
 * The video tools over MCP against the sandbox: catalog and image-to-video jobs end to end (saved MP4 as a
 * resource link), validation before any charge, resuming instead of paying twice, the long-job handle.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readMediaFixture } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

let harness: MediaHarness;
const jobsOf = (group: string) =>
  harness.sandbox.control.counters()[group]?.[harness.sandbox.users[0]!.id] ?? 0;

beforeAll(async () => {
  harness = await startMediaHarness();
  await writeFile(path.join(harness.root, 'cat.png'), readMediaFixture('png'));
  await writeFile(path.join(harness.root, 'fake.png'), Buffer.from('GIF89a not really a png'));
});
afterAll(async () => {
  await harness?.close();
});

describe('media server tools', () => {
  it('lists every tool, paid generation never marked read-only', async () => {
    const { tools } = await harness.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of [
      'list_video_models',
      'generate_video',
      'image_to_video',
      'get_video_job',
      'create_flashcards',
      'get_flashcards',
      'synthesize_speech',
      'get_speech',
      'register_voice',
      'list_voices',
      'list_jobs',
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    for (const paid of [
      'generate_video',
      'image_to_video',
      'create_flashcards',
      'synthesize_speech',
      'register_voice',
    ]) {
      expect(byName.get(paid)?.annotations?.readOnlyHint, paid).toBe(false);
    }
    expect(byName.get('list_video_models')?.annotations?.readOnlyHint).toBe(true);
    // The three tools that save a finished result into the output directory agree: not read-only, not destructive.
    for (const saving of ['get_video_job', 'get_speech', 'get_flashcards']) {
      expect(byName.get(saving)?.annotations, saving).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
    }
  });

  it('list_video_models shows required fields, inputs and parameter values', async () => {
    const result = await harness.call('list_video_models');
    expect(result.isError).toBe(false);
    const avatar = result.structured.models.find(
      (model: { id: string }) => model.id === 'hub:talking-avatar',
    );
    expect(avatar).toMatchObject({
      required: ['image_url', 'audio_url'],
      inputs: { images: 1, audios: 1, videos: 0 },
    });
    expect(result.text).toContain('hub:text-to-video-lite');
  });

  it('generate_video saves the MP4 and returns it as a resource link; the same request is resumed, not paid again', async () => {
    const args = {
      model: 'text-to-video-lite',
      prompt: 'A paper boat on a calm lake',
      duration: 5,
      waitSeconds: 30,
    };
    const first = await harness.call('generate_video', args);
    expect(first.isError, first.text).toBe(false);
    expect(first.structured).toMatchObject({
      done: true,
      status: 'done',
      service: 'catalog-video',
      model: 'hub:text-to-video-lite',
    });
    const saved = await readFile(first.structured.savedPath);
    expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(path.dirname(first.structured.savedPath)).toBe(await realOut());
    const link = first.content.find((item) => item.type === 'resource_link');
    expect(link).toMatchObject({ mimeType: 'video/mp4' });
    expect(JSON.stringify(first.content)).not.toContain('base64');

    const before = jobsOf('catalogVideoJobs');
    const again = await harness.call('generate_video', args);
    expect(again.structured).toMatchObject({ jobId: first.structured.jobId, resumed: true, done: true });
    expect(jobsOf('catalogVideoJobs')).toBe(before);

    const variation = await harness.call('generate_video', { ...args, newVariation: true });
    expect(variation.structured.jobId).not.toBe(first.structured.jobId);
    expect(jobsOf('catalogVideoJobs')).toBe(before + 1);
  });

  it('a request the catalog refuses is an actionable error and creates no job', async () => {
    const before = jobsOf('catalogVideoJobs');
    const unknownOption = await harness.call('generate_video', {
      model: 'hub:text-to-video-lite',
      prompt: 'x',
      options: { turbo: true },
    });
    expect(unknownOption.isError).toBe(true);
    expect(unknownOption.text).toMatch(/options\.turbo: unknown option/);
    const missing = await harness.call('generate_video', { model: 'hub:image-animate-pro', prompt: 'move' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/image_url: required/);
    const model = await harness.call('generate_video', { model: 'hub:nope', prompt: 'x' });
    expect(model.text).toMatch(/not in the video catalog.*hub:text-to-video-lite/);
    expect(jobsOf('catalogVideoJobs')).toBe(before);
  });

  it('image_to_video sends a local image inline and saves the video', async () => {
    const result = await harness.call('image_to_video', {
      prompt: 'The cat blinks',
      image: path.join(harness.root, 'cat.png'),
      duration: 2,
      waitSeconds: 30,
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ done: true, service: 'image-to-video' });
    expect((await readFile(result.structured.savedPath)).subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('image_to_video refuses private hosts, misnamed images and files outside the allowed directories before any job', async () => {
    const before = jobsOf('imageToVideoJobs');
    const metadata = await harness.call('image_to_video', {
      prompt: 'x',
      image: 'http://169.254.169.254/latest/x.png',
    });
    expect(metadata.isError).toBe(true);
    expect(metadata.text).toMatch(/private, loopback, local-network or otherwise non-public host/);
    const gif = await harness.call('image_to_video', {
      prompt: 'x',
      image: path.join(harness.root, 'fake.png'),
    });
    expect(gif.text).toMatch(/not a JPG, PNG or WEBP file/);
    const outside = await harness.call('image_to_video', { prompt: 'x', image: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(outside.text).toMatch(/not allowed|outside/i);
    expect(jobsOf('imageToVideoJobs')).toBe(before);
  });

  it('hands back a handle when the wait runs out, and get_video_job finishes it', async () => {
    // Held: the job stays queued however slow the machine is (at speed 100 it is done within a second of
    // sandbox time, which a busy machine once spent before the call's first read).
    harness.sandbox.control.holdClock();
    const started = await harness.call('image_to_video', {
      prompt: 'Slow zoom on the cat',
      image: path.join(harness.root, 'cat.png'),
      duration: 10,
      resolution: '480p',
      waitSeconds: 0,
    });
    harness.sandbox.control.releaseClock();
    expect(started.structured).toMatchObject({ done: false });
    expect(started.structured.next).toContain('get_video_job');
    const listed = await harness.call('list_jobs');
    expect(listed.structured.jobs.map((job: { jobId: string }) => job.jobId)).toContain(
      started.structured.jobId,
    );
    const finished = await harness.call('get_video_job', {
      jobId: started.structured.jobId,
      waitSeconds: 30,
    });
    expect(finished.structured).toMatchObject({ done: true, status: 'done', service: 'image-to-video' });
  });

  it('a failed job is reported as its outcome with the reason, not as a failed call', async () => {
    const result = await harness.call('generate_video', {
      model: 'hub:text-to-video-lite',
      prompt: 'please [sandbox:fail]',
      waitSeconds: 30,
    });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({ done: true, status: 'failed', outcome: 'failed' });
    expect(result.structured.error).toEqual(expect.any(String));
    expect(result.text).toMatch(/^Video \S+ ended failed: .+ Nothing was saved\./);
    expect(result.structured.next).toMatch(/newVariation=true/);
    expect(result.structured.savedPath).toBeUndefined();
  });
});

async function realOut(): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(path.join(harness.root, 'out'));
}
