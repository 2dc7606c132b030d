/**
 * The reading score view end to end, as a person sees it in a host that renders MCP Apps: the built bin over
 * stdio, a client that declares the UI extension, the view read as its `ui://` resource and mounted in
 * headless Chromium the way the spec lays it out (view-host.ts), fed the input and the real result of a
 * score_reading call against the sandbox. The recording is one the sandbox hears as a reading with a missing,
 * a substituted and an extra word, so every word colour shows. A queued score (sandbox clock held) shows its
 * state, and "Check again", pressed from the keyboard, fetches the score through the host. Screenshots are
 * written to test-artifacts/views/. A client without the extension sees no view anywhere.
 */
/// <reference lib="dom" />
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { serverEnv } from '@polymodal/mcp-common/testing';
import {
  connectBin,
  listedTool,
  RENDERS_VIEWS,
  readView,
  saveScreenshot,
  startViewHost,
  type ViewHost,
} from '@polymodal/mcp-common/testing/views';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PACKAGE, 'dist', 'index.js');
const VIEW_URI = 'ui://polymodal/reading-score.html';
/** The sample sentence read with อ่าน left out, ห้อง read as บ้าน and มาก added at the end. */
const MISREAD = 'ฉัน ชอบ หนังสือ ที่ บ้าน สมุด มาก';

interface ScoredWord {
  status: string;
  expected: string | null;
  heard: string | null;
}

interface ReadingFacts {
  done: boolean;
  status: string;
  jobId: string;
  scores: Record<'overall' | 'textAccuracy' | 'pronunciation' | 'levenshteinSimilarity', number | null>;
  correctWords: number;
  referenceWords: number;
  words: ScoredWord[];
  feedback: { practise: string[] };
}

/** What the view shows of a scored reading, read from the page as a person (or a screen reader) gets it. */
function readShownScore() {
  const colourOf = (element: Element) => {
    const style = getComputedStyle(element);
    return { color: style.color, background: style.backgroundColor, border: style.borderTopStyle };
  };
  const legend = Object.fromEntries(
    Array.from(document.querySelectorAll('.legend .word')).map((sample) => [
      Array.from(sample.classList)
        .find((name) => name.startsWith('word-'))
        ?.slice('word-'.length),
      colourOf(sample),
    ]),
  );
  return {
    heading: document.querySelector('h1')?.textContent,
    status: document.getElementById('status')?.textContent,
    scores: Object.fromEntries(
      Array.from(document.querySelectorAll<HTMLElement>('.score')).map((row) => [
        row.dataset.score,
        { term: row.querySelector('dt')?.textContent, value: row.querySelector('dd')?.textContent },
      ]),
    ),
    words: Array.from(document.querySelectorAll('#words > li')).map((item) => ({
      className: item.className,
      token: item.querySelector('.token')?.textContent,
      heardShown: item.querySelector('.heard')?.textContent ?? null,
      label: item.querySelector('.visually-hidden')?.textContent,
      title: item.getAttribute('title'),
      ...colourOf(item),
    })),
    legend,
    legendText: document.querySelector('.legend')?.textContent?.replace(/\s+/g, ' ').trim(),
    practise: document.getElementById('practise-section')?.hidden
      ? null
      : document.getElementById('practise')?.textContent,
    players: document.querySelectorAll('audio, video').length,
    runningShown: !document.getElementById('running')?.hidden,
    theme: document.documentElement.dataset.theme,
  };
}

describe('the reading score view in a browser host', () => {
  let sandbox: Sandbox;
  let root: string;
  const clients: Client[] = [];
  let host: ViewHost | undefined;

  async function connect(capabilities: ClientCapabilities): Promise<Client> {
    // A short poll interval: "Check again" waits for the queued score once the sandbox clock runs again.
    const client = await connectBin({ bin: BIN, env: serverEnv(root, sandbox, 50), capabilities });
    clients.push(client);
    return client;
  }

  async function recording(name: string, attempts: string[], secondsPerAttempt?: number): Promise<string> {
    const file = path.join(root, name);
    await writeFile(
      file,
      createReadingRecording({ attempts, ...(secondsPerAttempt ? { secondsPerAttempt } : {}) }),
    );
    return file;
  }

  async function score(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = await client.callTool({ name, arguments: args }, { timeout: 40_000 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result;
  }

  /** What a person must see of a score: each score by name, each word coloured as its legend entry says. */
  function expectShownScore(shown: ReturnType<typeof readShownScore>, facts: ReadingFacts): void {
    const value = (score: number | null) => (score === null ? 'not scored' : score.toFixed(1));
    expect(shown.heading).toBe('Reading score');
    expect(shown.status).toBe(`${facts.correctWords} of ${facts.referenceWords} words read correctly.`);
    expect(shown.scores).toEqual({
      overall: { term: 'Overall', value: value(facts.scores.overall) },
      textAccuracy: { term: 'Text accuracy', value: value(facts.scores.textAccuracy) },
      pronunciation: { term: 'Pronunciation', value: value(facts.scores.pronunciation) },
      levenshteinSimilarity: {
        term: 'Similarity to the text',
        value: value(facts.scores.levenshteinSimilarity),
      },
      correctWords: { term: 'Words correct', value: `${facts.correctWords} of ${facts.referenceWords}` },
    });
    expect(shown.words).toHaveLength(facts.words.length);
    facts.words.forEach((word, index) => {
      const item = shown.words[index]!;
      expect(item.className).toBe(`word word-${word.status}`);
      // Coloured as the legend's entry for its status.
      expect(item, `word ${index} (${word.status})`).toMatchObject(shown.legend[word.status] ?? {});
      expect(item.token).toBe(word.expected ?? word.heard);
      // Named in words too: colour is not the only signal.
      const label = {
        correct: 'correct',
        substitution: `read as “${word.heard}”`,
        missing: 'missing, not read',
        extra: 'extra, read but not in the text',
      }[word.status];
      expect(item.label).toBe(`: ${label}`);
      expect(item.title).toBe(label);
      expect(item.heardShown).toBe(word.status === 'substitution' ? word.heard : null);
    });
    // One colour per status: no two statuses look alike.
    const statuses = [...new Set(facts.words.map((word) => word.status))];
    const colours = new Set(statuses.map((status) => JSON.stringify(shown.legend[status])));
    expect(colours.size).toBe(statuses.length);
    expect(shown.legendText).toBe(
      'ก correct ก read as another word ก missing (not read) ก extra (read, not in the text)',
    );
    expect(shown.practise).toBe(facts.feedback.practise.length ? facts.feedback.practise.join(', ') : null);
    // The student's recording is not reachable through the host (no output link, a path on the server).
    expect(shown.players).toBe(0);
    expect(shown.runningShown).toBe(false);
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-speech-view-'));
  });

  afterEach(async () => {
    await host?.close();
    host = undefined;
    if (sandbox.control.isClockHeld()) sandbox.control.releaseClock();
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('colours each word of a real score_reading result by its feedback, shows the scores, no console error', async () => {
    const client = await connect(RENDERS_VIEWS);
    const { tools } = await client.listTools();
    expect(tools.filter((tool) => tool._meta?.ui).map((tool) => [tool.name, tool._meta])).toEqual([
      ['score_reading', { ui: { resourceUri: VIEW_URI } }],
      ['get_reading_score', { ui: { resourceUri: VIEW_URI } }],
    ]);
    const view = await readView(client, VIEW_URI);
    expect(view.csp).toBeUndefined();

    const input = {
      studentAudioPath: await recording('misread.wav', [MISREAD]),
      referenceText: SAMPLE_READING_TEXT,
    };
    const result = await score(client, 'score_reading', input);
    const facts = result.structuredContent as unknown as ReadingFacts;
    expect(facts.done).toBe(true);
    // The recording was chosen so that the sandbox finds every kind of word.
    expect(new Set(facts.words.map((word) => word.status))).toEqual(
      new Set(['correct', 'missing', 'substitution', 'extra']),
    );

    host = await startViewHost(client);
    const frame = await host.mount({
      html: view.html,
      csp: view.csp,
      hostContext: { theme: 'light', toolInfo: { tool: await listedTool(client, 'score_reading') } },
      input,
      result,
      timeoutMs: 60_000,
    });
    await frame.waitForFunction(() => document.querySelectorAll('#words > li').length > 0, undefined, {
      timeout: 30_000,
    });
    const shown = await frame.evaluate(readShownScore);
    expectShownScore(shown, facts);
    expect(shown.theme).toBe('light');
    expect(await host.bridgeEvents()).toEqual(['sandbox-ready', 'initialized', 'tool-input', 'tool-result']);
    await saveScreenshot(host, 'reading-score');
    expect(host.errors).toEqual([]);
  }, 150_000);

  it('shows a queued score as running, and "Check again" (from the keyboard) fetches it through the host', async () => {
    const client = await connect(RENDERS_VIEWS);
    const view = await readView(client, VIEW_URI);
    // Over 20 s of audio: the sandbox queues it. Held, the task stays PENDING however slow the machine is.
    const input = {
      studentAudioPath: await recording('long.wav', [MISREAD], 25),
      referenceText: SAMPLE_READING_TEXT,
      waitSeconds: 0,
    };
    sandbox.control.holdClock();
    const result = await score(client, 'score_reading', input);
    const queued = result.structuredContent as unknown as ReadingFacts;
    expect(queued).toMatchObject({ done: false, status: 'PENDING' });

    host = await startViewHost(client);
    const frame = await host.mount({
      html: view.html,
      csp: view.csp,
      hostContext: { theme: 'dark', toolInfo: { tool: await listedTool(client, 'score_reading') } },
      input,
      result,
      timeoutMs: 60_000,
    });
    const running = await frame.evaluate(() => ({
      heading: document.querySelector('h1')?.textContent,
      status: document.getElementById('status')?.textContent,
      progress: document.querySelector('progress')?.labels?.[0]?.textContent,
      button: document.querySelector('button')?.textContent,
      buttonShown: (document.querySelector('button')?.getClientRects().length ?? 0) > 0,
      reference: document.getElementById('reference-section')?.hidden
        ? null
        : document.getElementById('reference')?.textContent,
      scoresShown: !document.getElementById('scores-section')?.hidden,
      wordsShown: !document.getElementById('words-section')?.hidden,
    }));
    expect(running).toEqual({
      heading: 'Scoring the reading…',
      status: 'Not ready yet (PENDING): check again in a moment.',
      progress: `Queued score ${queued.jobId}: PENDING, 0%`,
      button: 'Check again',
      buttonShown: true,
      reference: SAMPLE_READING_TEXT,
      scoresShown: false,
      wordsShown: false,
    });
    await saveScreenshot(host, 'reading-score-running');

    sandbox.control.releaseClock();
    await frame.locator('#refresh').focus();
    await host.page.keyboard.press('Enter');
    await frame.waitForFunction(() => document.querySelectorAll('#words > li').length > 0, undefined, {
      timeout: 30_000,
    });
    expect(await host.bridgeEvents()).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      'tools/call get_reading_score',
    ]);
    // What the view was given, fetched again (free: the same finished task).
    const finished = await score(client, 'get_reading_score', { jobId: queued.jobId });
    const facts = finished.structuredContent as unknown as ReadingFacts;
    expect(facts.done).toBe(true);
    const shown = await frame.evaluate(readShownScore);
    expectShownScore(shown, facts);
    expect(shown.theme).toBe('dark');
    // The button is gone; focus went to the heading, not to the page's start.
    expect(await frame.evaluate(() => document.activeElement?.id)).toBe('heading');
    await saveScreenshot(host, 'reading-score-dark');
    expect(host.errors).toEqual([]);
  }, 150_000);

  it('offers nothing of the view to a client without the extension', async () => {
    const client = await connect({});
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool._meta?.ui !== undefined)).toBe(false);
    expect(JSON.stringify(tools)).not.toContain('ui://');
    const { resources } = await client.listResources();
    expect(resources.some((resource) => resource.uri.startsWith('ui://'))).toBe(false);
    await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
  }, 60_000);
});
