/**
 * The media player view with a video, end to end as a person sees it in a host that renders MCP Apps: the
 * built bin over stdio against the sandbox, the view mounted in headless Chromium the way the spec lays it
 * out (view-host.ts), fed the real result of generate_video. The view reads the MP4 through the host and
 * plays it from a `data:` URL (the sandbox's video is H.264, which Debian's Chromium decodes). A running job
 * is checked again from the view: the sandbox clock is held, so the first answer is a running job whatever
 * the machine's load, and moved on before the click, so the check finds it finished.
 */
/// <reference lib="dom" />
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveScreenshot, useViewSession } from '@polymodal/mcp-common/testing/views';
import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PACKAGE, 'dist', 'index.js');
const VIEW_URI = 'ui://polymodal/media-player.html';
const MODEL = 'hub:text-to-video-lite';

interface VideoFacts {
  jobId: string;
  done: boolean;
  savedPath: string;
  sizeBytes: number;
}

describe('the media player view with a video, in a browser host', () => {
  const session = useViewSession({
    bin: BIN,
    viewUri: VIEW_URI,
    scratch: 'mcp-media-video-view-',
    theme: 'light',
  });
  const { call, mount } = session;

  /** Playable: the video's `data:` source resolved to decoded metadata (a duration and a frame size). */
  function playableVideo(frame: Frame) {
    return frame.waitForFunction(
      () => {
        const video = document.querySelector('video');
        return video !== null && !video.hidden && video.readyState >= 1 && video.duration > 0;
      },
      undefined,
      { timeout: 20_000 },
    );
  }

  function seenOf(frame: Frame) {
    return frame.evaluate(() => {
      const video = document.querySelector('video');
      return {
        heading: document.querySelector('h1')?.textContent,
        status: document.getElementById('status')?.textContent,
        facts: document.querySelector('dl')?.textContent ?? '',
        prompt: document.querySelector('blockquote:not([hidden])')?.textContent ?? null,
        source: video?.currentSrc.slice(0, 22),
        controls: video?.controls,
        label: document.getElementById(video?.getAttribute('aria-labelledby') ?? '')?.textContent,
        audioShown: !document.querySelector('audio')?.hidden,
        progressShown: !document.querySelector('progress')?.hidden,
        refreshShown: !document.getElementById('refresh')?.hidden,
      };
    });
  }

  it('plays the real result of generate_video, with the file name, size, model, job and frame size', async () => {
    const input = { model: MODEL, prompt: 'A paper boat drifting on a pond', waitSeconds: 30 };
    const result = await call('generate_video', input);
    const { savedPath, sizeBytes, jobId, done } = result.structuredContent as unknown as VideoFacts;
    expect(done).toBe(true);
    const fileName = path.basename(savedPath);

    const frame = await mount('generate_video', input, result);
    await playableVideo(frame);
    const seen = await seenOf(frame);
    expect(seen).toMatchObject({
      heading: fileName,
      status: '',
      prompt: input.prompt,
      source: 'data:video/mp4;base64,',
      controls: true,
      label: fileName,
      audioShown: false,
      progressShown: false,
      refreshShown: false,
    });
    expect(seen.facts).toContain(`${(sizeBytes / 1024).toFixed(1)} KB`);
    expect(seen.facts).toContain(MODEL);
    expect(seen.facts).toContain(jobId);
    // What the browser decoded: the sandbox's 2 s, 160x90 test pattern.
    expect(seen.facts).toMatch(/Duration\s*2\.\d s/);
    expect(seen.facts).toContain('160 × 90');
    expect(await session.host.bridgeEvents()).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      `resources/read polymodal://outputs/${encodeURIComponent(fileName)}`,
    ]);
    await saveScreenshot(session.host, 'media-player-video');
    expect(session.host.errors).toEqual([]);
  }, 60_000);

  it('shows a running job with its progress, and "Check again" calls get_video_job and plays the finished video', async () => {
    // Held: the job is still queued when the call answers, however slow the machine is.
    session.sandbox.control.holdClock();
    const input = { model: MODEL, prompt: 'A kite over the dunes', waitSeconds: 0 };
    const started = await call('generate_video', input);
    const { jobId, done } = started.structuredContent as unknown as VideoFacts;
    expect(done).toBe(false);

    const frame = await mount('generate_video', input, started);
    await frame.getByRole('button', { name: 'Check again' }).waitFor({ timeout: 20_000 });
    const running = await seenOf(frame);
    expect(running).toMatchObject({
      heading: 'Still working…',
      status: expect.stringMatching(new RegExp(`^Job ${jobId} is queued, 0%\\.`)),
      progressShown: true,
      refreshShown: true,
    });
    expect(running.facts).toContain(jobId);
    expect(await frame.locator('progress').getAttribute('aria-label')).toBe('Progress of the job');

    // The job finishes on the platform (the held clock moves a minute on) before the person checks again.
    session.sandbox.control.advance(60_000);
    await frame.getByRole('button', { name: 'Check again' }).click();
    await playableVideo(frame);
    const finished = await seenOf(frame);
    expect(finished).toMatchObject({
      heading: `video-${jobId}.mp4`,
      source: 'data:video/mp4;base64,',
      progressShown: false,
      refreshShown: false,
    });
    expect(finished.facts).toContain('succeeded');
    expect(await session.host.bridgeEvents()).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      'tools/call get_video_job',
      `resources/read polymodal://outputs/video-${jobId}.mp4`,
    ]);
    expect(session.host.errors).toEqual([]);
  }, 60_000);

  it('names a video too large to read through the host instead of reading it', async () => {
    // The sandbox makes only small videos: the real result of a finished job, with its link saying 8 MiB
    // (over the view's 7 MiB read limit), is what a person sees after a long high-resolution generation.
    const input = { model: MODEL, prompt: 'A lighthouse at dusk', waitSeconds: 30 };
    const result = await call('generate_video', input);
    const large = {
      ...result,
      content: result.content.map((item) =>
        item.type === 'resource_link' ? { ...item, size: 8 * 1024 * 1024 } : item,
      ),
    };
    const fileName = path.basename((result.structuredContent as unknown as VideoFacts).savedPath);

    const frame = await mount('generate_video', input, large);
    await frame.getByText('too large to play here').waitFor({ timeout: 20_000 });
    const seen = await seenOf(frame);
    expect(seen.heading).toBe(fileName);
    expect(seen.status).toBe(
      `This video is 8.0 MB: too large to play here (a view reads files of up to 7.0 MB through the host). It is saved as ${fileName}.`,
    );
    expect(await frame.locator('video').isHidden()).toBe(true);
    expect((await session.host.bridgeEvents()).some((event) => event.startsWith('resources/read'))).toBe(
      false,
    );
    expect(session.host.errors).toEqual([]);
  }, 60_000);
});
