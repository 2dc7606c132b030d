/**
 * The flashcard deck view end to end, as a person sees it in a host that renders MCP Apps: the built bin over
 * stdio against the sandbox, the view mounted in headless Chromium the way the spec lays it out
 * (view-host.ts), fed the real result of create_flashcards. The result lists the first 12 cards; the view
 * reads the others from the saved JSON through the host. Cards turn over by click and by keyboard, and say
 * so to assistive technology. A running job is checked again from the view: the sandbox clock is held, so
 * the first answer is a running job whatever the machine's load, and moved on before the click.
 */
/// <reference lib="dom" />
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveScreenshot, useViewSession } from '@polymodal/mcp-common/testing/views';
import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PACKAGE, 'dist', 'index.js');
const VIEW_URI = 'ui://polymodal/flashcard-deck.html';

interface Segment {
  text: string;
  translation: string | null;
  clipUrl: string | null;
}

interface FlashcardsFacts {
  jobId: string;
  done: boolean;
  segmentCount: number;
  wordCount: number;
  savedPath: string;
  segments: Segment[];
}

describe('the flashcard deck view in a browser host', () => {
  const session = useViewSession({
    bin: BIN,
    viewUri: VIEW_URI,
    scratch: 'mcp-media-deck-view-',
    theme: 'dark',
  });
  const { call, mount } = session;

  function cardOf(frame: Frame) {
    return frame.evaluate(() => {
      const card = document.getElementById('card');
      const visible = (id: string) => {
        const element = document.getElementById(id);
        return element !== null && !element.closest('[hidden]') && element.getClientRects().length > 0;
      };
      return {
        position: document.getElementById('position')?.textContent,
        pressed: card?.getAttribute('aria-pressed'),
        front: visible('front-text') ? document.getElementById('front-text')?.textContent : null,
        back: visible('back-text') ? document.getElementById('back-text')?.textContent : null,
        announced: document.getElementById('announce')?.textContent,
        focused: document.activeElement?.id,
      };
    });
  }

  it('shows every card of a real create_flashcards result and turns them over by click and keyboard', async () => {
    // Short segments make more cards than the result lists, so the rest come from the saved JSON.
    const input = {
      video: 'https://youtu.be/dQw4w9WgXcQ',
      // The back in Vietnamese (Latin script): readable in the screenshot on a machine without CJK fonts.
      learningDirection: 'chinese_to_vietnamese',
      maxWordsPerSegment: 5,
      waitSeconds: 30,
    };
    const result = await call('create_flashcards', input);
    const facts = result.structuredContent as unknown as FlashcardsFacts;
    expect(facts.done).toBe(true);
    const total = facts.segmentCount;
    expect(total).toBeGreaterThan(facts.segments.length);
    const [first, second] = facts.segments as [Segment, Segment];
    expect(first.translation).toEqual(expect.any(String));

    const frame = await mount('create_flashcards', input, result);
    await frame.getByText(`Card 1 of ${total}`).waitFor({ timeout: 20_000 });
    expect(await frame.locator('#summary').textContent()).toBe(
      `${total} cards · zh → vi · ${facts.wordCount} words · job ${facts.jobId}`,
    );
    expect(await cardOf(frame)).toMatchObject({ pressed: 'false', front: first.text, back: null });
    expect(await frame.locator('#front').getAttribute('lang')).toBe('zh');
    expect(await frame.locator('#back').getAttribute('lang')).toBe('vi');

    // A click turns the card over: the translation shows, the sentence hides, and the change is announced.
    const card = frame.locator('#card');
    await card.click();
    expect(await cardOf(frame)).toMatchObject({
      pressed: 'true',
      front: null,
      back: first.translation,
      announced: `Back of card 1 of ${total}: ${first.translation}`,
    });
    await saveScreenshot(session.host, 'flashcard-deck');

    // Enter on the focused card turns it back; the right arrow goes to the next card, front up.
    await card.focus();
    await card.press('Enter');
    expect(await cardOf(frame)).toMatchObject({
      pressed: 'false',
      front: first.text,
      back: null,
      announced: `Front of card 1 of ${total}: ${first.text}`,
      focused: 'card',
    });
    await card.press('ArrowRight');
    expect(await cardOf(frame)).toMatchObject({
      position: `Card 2 of ${total}`,
      pressed: 'false',
      front: second.text,
      announced: `Card 2 of ${total}, front: ${second.text}`,
    });
    await card.press('Enter');
    expect(await cardOf(frame)).toMatchObject({ pressed: 'true', front: null, back: second.translation });
    await card.press('End');
    expect((await cardOf(frame)).position).toBe(`Card ${total} of ${total}`);
    expect(await frame.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await frame.getByRole('button', { name: 'Previous' }).click();
    expect((await cardOf(frame)).position).toBe(`Card ${total - 1} of ${total}`);

    // The clip is the platform's: opened through the host, never loaded by the view.
    await card.press('Home');
    await frame.getByRole('button', { name: 'Open the clip' }).click();
    await expect
      .poll(() => session.host.hostRequests())
      .toEqual([{ method: 'ui/open-link', params: { url: first.clipUrl } }]);
    expect(await session.host.bridgeEvents()).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      `resources/read polymodal://outputs/${encodeURIComponent(path.basename(facts.savedPath))}`,
      `ui/open-link ${first.clipUrl}`,
    ]);
    expect(session.host.errors).toEqual([]);
  }, 60_000);

  it('shows a running job with its progress, and "Check again" calls get_flashcards and shows the cards', async () => {
    // Held: the job is still queued when the call answers, however slow the machine is.
    session.sandbox.control.holdClock();
    const input = {
      video: 'https://youtu.be/M7lc1UVf-VE',
      learningDirection: 'korean_to_chinese',
      waitSeconds: 0,
    };
    const started = await call('create_flashcards', input);
    const { jobId, done } = started.structuredContent as unknown as FlashcardsFacts;
    expect(done).toBe(false);

    const frame = await mount('create_flashcards', input, started);
    const checkAgain = frame.getByRole('button', { name: 'Check again' });
    await checkAgain.waitFor({ timeout: 20_000 });
    expect(await frame.locator('h1').textContent()).toBe('Making the flashcards…');
    expect(await frame.locator('#status').textContent()).toMatch(
      new RegExp(`^Job ${jobId} is queued, 0%\\.`),
    );
    expect(await frame.locator('progress').isVisible()).toBe(true);
    expect(await frame.locator('#cards').isHidden()).toBe(true);

    // The job finishes on the platform (the held clock moves ten minutes on) before the person checks again.
    session.sandbox.control.advance(600_000);
    await checkAgain.click();
    await frame.getByText(/^Card 1 of \d+$/).waitFor({ timeout: 20_000 });
    expect(await checkAgain.isHidden()).toBe(true);
    expect(await frame.locator('progress').isHidden()).toBe(true);
    expect(await frame.locator('#summary').textContent()).toMatch(/^\d+ cards · ko → zh · \d+ words/);
    const events = await session.host.bridgeEvents();
    expect(events.slice(0, 5)).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      'tools/call get_flashcards',
    ]);
    expect(session.host.errors).toEqual([]);
  }, 60_000);
});
