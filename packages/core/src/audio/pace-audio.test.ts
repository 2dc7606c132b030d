import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { paceAudio } from './pace-audio.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

async function collect(iterator: AsyncIterable<Int16Array>, log: number[], start: number) {
  const frames: Int16Array[] = [];
  for await (const frame of iterator) {
    frames.push(frame);
    log.push(performance.now() - start);
  }
  return frames;
}

describe('paceAudio', () => {
  it('yields 20 ms frames, each once its last sample would have been captured', async () => {
    const start = performance.now();
    const times: number[] = [];
    // 70 ms at 16 kHz: three full 20 ms frames and a 10 ms tail.
    const done = collect(paceAudio(new Int16Array(1120), { sampleRate: 16_000 }), times, start);
    await vi.advanceTimersByTimeAsync(100);
    const frames = await done;
    expect(frames.map((frame) => frame.length)).toEqual([320, 320, 320, 160]);
    expect(times).toEqual([20, 40, 60, 70]);
  });

  it('runs faster with speed, and unpaced with speed 0', async () => {
    const start = performance.now();
    const fast: number[] = [];
    const done = collect(paceAudio(new Int16Array(640), { sampleRate: 8000, speed: 4 }), fast, start);
    await vi.advanceTimersByTimeAsync(30);
    expect((await done).length).toBe(4);
    expect(fast).toEqual([5, 10, 15, 20]);

    const unpaced: number[] = [];
    const frames = await collect(
      paceAudio(new Int16Array(640), { sampleRate: 8000, speed: 0 }),
      unpaced,
      performance.now(),
    );
    expect(frames.length).toBe(4);
    expect(unpaced).toEqual([0, 0, 0, 0]);
  });

  it('stops at once when the signal aborts', async () => {
    const controller = new AbortController();
    const iterator = paceAudio(new Int16Array(16_000), { sampleRate: 16_000, signal: controller.signal });
    const first = iterator.next();
    await vi.advanceTimersByTimeAsync(20);
    expect((await first).done).toBe(false);
    const second = iterator.next();
    controller.abort(new Error('stopped by caller'));
    await expect(second).rejects.toThrow('stopped by caller');
  });

  it('refuses a negative speed', async () => {
    await expect(paceAudio(new Int16Array(10), { sampleRate: 8000, speed: -1 }).next()).rejects.toThrow(
      RangeError,
    );
  });
});

describe('paceAudio over blocks from a decoder', () => {
  it('joins frames across blocks and keeps the pace of the samples, not of the blocks', async () => {
    async function* blocks() {
      // 70 ms at 16 kHz in uneven blocks.
      for (const size of [100, 500, 20, 0, 500]) yield new Int16Array(size).fill(size);
    }
    const start = performance.now();
    const times: number[] = [];
    const done = collect(paceAudio(blocks(), { sampleRate: 16_000 }), times, start);
    await vi.advanceTimersByTimeAsync(100);
    const frames = await done;
    expect(frames.map((frame) => frame.length)).toEqual([320, 320, 320, 160]);
    expect(times).toEqual([20, 40, 60, 70]);
    // The first frame holds the first block, then the start of the second, in order.
    expect(frames[0]?.[99]).toBe(100);
    expect(frames[0]?.[100]).toBe(500);
  });

  it('takes the next block only when a frame is due', async () => {
    let taken = 0;
    function* blocks() {
      for (let block = 0; block < 10; block++) {
        taken++;
        yield new Int16Array(320);
      }
    }
    const iterator = paceAudio(blocks(), { sampleRate: 16_000 });
    const first = iterator.next();
    await vi.advanceTimersByTimeAsync(20);
    await first;
    expect(taken).toBe(1);
    await iterator.return();
  });
});
