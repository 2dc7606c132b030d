#!/usr/bin/env node
// What each MCP Apps view costs a host: the size of its built HTML (bytes and gzip), and its first render in
// headless Chromium through the test host the view tests use (packages/mcp-common/test/support/view-host.ts:
// host page, sandbox proxy on another origin, the view in the proxy's srcdoc frame under the view's CSP,
// ext-apps' AppBridge), beside a floor: the least a view can be with ext-apps (bench/views-floor/, built by
// scripts/build-views.mjs like the views), which connects and writes the tool result's text into the page.
//
// One real result per view comes from the combined server's bin (packages/mcp/dist/index.js) over stdio, as
// a client that renders views, against a sandbox in a separate process; each result is then mounted
// BENCH_VIEWS_RUNS times (default 7) in the view and as many in the floor, alternated in rounds (the floor
// first in even rounds, the view first in odd ones), each mount in a fresh test host (its own Chromium, as
// each view test starts one), so no mount finds the script compiled or the frame warm.
//
// Per mount: (a) mount start → the view's `ui/notifications/initialized` at the host, split at the view
// document's start (its `performance.timeOrigin`) and at its DOMContentLoaded (the inline script has run);
// (b) tool result sent → the view's content in its DOM: a per-view check, run by a script that Chromium puts
// into the view's frame before the view's own (playwright's init script, outside the CSP), on every DOM
// change and media event, so the time is the view's own and not when the benchmark got to look.
// Host times come from the host page's `bridgeTimes`, view times from the view frame's clock; both are
// `performance.timeOrigin + performance.now()`. Beside them, the renderer's main-thread time over the mount
// (Chromium's Performance domain: script compile and run, style and layout), which says where (a) goes.
// Imported by run.mjs; run alone, `node views.mjs` prints its section.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createReadingRecording, SAMPLE_READING_TEXT, writeMeetingRecording } from '@polymodal/sandbox';
import { buildViews, bundleViewScript } from '../scripts/build-views.mjs';
import { SHORT_SCRIPT } from './meeting-server.mjs';
import { startSandboxProcess } from './sandbox-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, '..');
/** The esbuild that tsup brings: the one the views, the bins and the test host's page are built with. */
const esbuild = createRequire(fileURLToPath(import.meta.resolve('tsup')))('esbuild');
const RUNS = Number(process.env.BENCH_VIEWS_RUNS ?? 7);
const COMBINED_BIN = path.join(repo, 'packages', 'mcp', 'dist', 'index.js');
const BUILT_VIEWS = path.join(repo, 'packages', 'mcp', 'dist', 'views');
const VIEW_HOST = path.join(repo, 'packages', 'mcp-common', 'test', 'support', 'view-host.ts');
const FLOOR = path.join(here, 'views-floor');
const RENDERS_VIEWS = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};
/** The sample sentence read with อ่าน left out, ห้อง read as บ้าน and มาก added: every word colour shows. */
const MISREAD = 'ฉัน ชอบ หนังสือ ที่ บ้าน สมุด มาก';

/**
 * The views, each with the call whose real result it is mounted with, and the check that its content is
 * there (a name in `watchContent`'s table): what the view tests wait for before they look.
 */
const VIEWS = [
  {
    label: 'meeting viewer',
    file: 'meeting-viewer',
    folder: 'packages/mcp-meeting/views/meeting-viewer',
    content: 'segments',
    call: async (client, root) => {
      const file = path.join(root, 'launch.wav');
      await writeMeetingRecording(file, { script: SHORT_SCRIPT });
      const input = {
        path: file,
        sourceLanguage: 'en',
        targetLanguage: 'de',
        title: 'Beta launch review',
        waitSeconds: 40,
      };
      return { tool: 'summarize_meeting', input, result: await finishedMeeting(client, input) };
    },
  },
  {
    label: 'media player, speech',
    file: 'media-player',
    folder: 'packages/mcp-media/views/media-player',
    content: 'audio',
    call: (client) =>
      callFor(client, 'synthesize_speech', {
        text: 'The next meeting is on Tuesday at ten.',
        language: 'en',
        waitSeconds: 30,
      }),
  },
  {
    label: 'media player, video',
    file: 'media-player',
    folder: 'packages/mcp-media/views/media-player',
    content: 'video',
    call: (client) =>
      callFor(client, 'generate_video', {
        model: 'hub:text-to-video-lite',
        prompt: 'A paper boat drifting on a pond',
        waitSeconds: 30,
      }),
  },
  {
    label: 'flashcard deck',
    file: 'flashcard-deck',
    folder: 'packages/mcp-media/views/flashcard-deck',
    content: 'card',
    call: (client) =>
      callFor(client, 'create_flashcards', {
        video: 'https://youtu.be/dQw4w9WgXcQ',
        learningDirection: 'chinese_to_vietnamese',
        maxWordsPerSegment: 5,
        waitSeconds: 30,
      }),
  },
  {
    label: 'reading score',
    file: 'reading-score',
    folder: 'packages/mcp-speech/views/reading-score',
    content: 'words',
    call: async (client, root) => {
      const file = path.join(root, 'misread.wav');
      await writeFile(file, createReadingRecording({ attempts: [MISREAD] }));
      return callFor(client, 'score_reading', {
        studentAudioPath: file,
        referenceText: SAMPLE_READING_TEXT,
      });
    },
  },
];

async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  if (result.isError) {
    const text = result.content.map((item) => item.text ?? '').join(' ');
    throw new Error(`${name} failed: ${text}`);
  }
  return result;
}

/** A finished call's result; the views show a running job differently, and this benchmarks the content. */
async function callFor(client, tool, input) {
  const result = await callTool(client, tool, input);
  if (result.structuredContent?.done === false) throw new Error(`${tool} did not finish within its wait`);
  return { tool, input, result };
}

/**
 * summarize_meeting's answer once the job is done. It waits 40 s at most, so on a loaded machine the job is
 * followed through get_meeting, then asked for again: the same file and options resume the same job.
 */
async function finishedMeeting(client, input) {
  let result = await callTool(client, 'summarize_meeting', input);
  for (let read = 0; read < 10 && result.structuredContent?.done === false; read++) {
    const { jobId } = result.structuredContent;
    const status = await callTool(client, 'get_meeting', { jobId, waitSeconds: 40 });
    if (status.structuredContent?.done !== false) result = await callTool(client, 'summarize_meeting', input);
  }
  if (result.structuredContent?.status !== 'COMPLETED') {
    throw new Error(`the meeting job ended ${result.structuredContent?.status}`);
  }
  return result;
}

/**
 * view-host.ts bundled for Node into `directory` and imported. Its own paths stay the source's: import.meta.url
 * is the source file's (it finds view-host-page.ts and tsup beside it), and every package is left external by
 * the absolute path it resolves to from there (playwright-core is mcp-common's, not bench's).
 */
async function loadViewHost(directory) {
  const outfile = path.join(directory, 'view-host.mjs');
  await esbuild.build({
    entryPoints: [VIEW_HOST],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(VIEW_HOST).href) },
    plugins: [
      {
        name: 'packages-external-from-source',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.pluginData?.resolving) return undefined;
            const resolved = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: { resolving: true },
            });
            if (resolved.errors.length > 0) return { errors: resolved.errors };
            return {
              path: resolved.external ? resolved.path : pathToFileURL(resolved.path).href,
              external: true,
            };
          });
        },
      },
    ],
  });
  return import(pathToFileURL(outfile).href);
}

/**
 * Put into every frame before its own scripts (a playwright init script); acts in the view's frame only
 * (the proxy's srcdoc document). Records when `kind`'s content was first in its DOM, checked on every DOM
 * change and on the media events that change a player's readyState.
 */
function watchContent(kind) {
  if (location.href !== 'about:srcdoc') return;
  const now = () => performance.timeOrigin + performance.now();
  const shown = (element) => element !== null && element.closest('[hidden]') === null;
  const media = (selector) => {
    const element = document.querySelector(selector);
    return shown(element) && element.readyState >= 1;
  };
  const checks = {
    floor: () => (document.getElementById('result')?.textContent ?? '') !== '',
    segments: () => document.querySelector('#segments li') !== null,
    audio: () => media('audio'),
    video: () => media('video'),
    card: () => {
      const front = document.getElementById('front-text');
      return shown(front) && (front.textContent ?? '') !== '';
    },
    words: () => document.querySelector('#words > li') !== null,
  };
  const check = checks[kind];
  const timing = { content: undefined };
  window.viewTiming = timing;
  const look = () => {
    if (timing.content !== undefined || !check()) return;
    timing.content = now();
    observer.disconnect();
  };
  const observer = new MutationObserver(look);
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  for (const type of ['loadedmetadata', 'loadeddata', 'canplay']) document.addEventListener(type, look, true);
}

/**
 * The renderer's main-thread time so far (Chromium's Performance domain, in ms): tasks, script run and
 * top-level V8 compile as Chromium counts them, style and layout. The view's frame shares the renderer with
 * the host page and the proxy (one site, loopback), so a difference over a mount is the mount's whole work.
 */
async function mainThreadMs(session) {
  const { metrics } = await session.send('Performance.getMetrics');
  const seconds = Object.fromEntries(metrics.map((metric) => [metric.name, metric.value]));
  return {
    // DevTools' own commands are the benchmark's probes (the waits on the view's frame), not the mount's.
    tasks: (seconds.TaskDuration - seconds.DevToolsCommandDuration) * 1000,
    script: seconds.ScriptDuration * 1000,
    compile: seconds.V8CompileDuration * 1000,
    styleLayout: (seconds.RecalcStyleDuration + seconds.LayoutDuration) * 1000,
  };
}

const at = (times, event) => {
  const found = times.find((time) => time.event === event);
  if (!found) throw new Error(`the host saw no ${event}`);
  return found.at;
};

/** One mount in a fresh test host; its times in ms, and what went through the host before the content. */
async function mountOnce(startViewHost, client, mount) {
  const host = await startViewHost(client);
  try {
    await host.page.addInitScript(watchContent, mount.content);
    const metrics = await host.page.context().newCDPSession(host.page);
    await metrics.send('Performance.enable');
    const busyBefore = await mainThreadMs(metrics);
    const frame = await host.mount({
      html: mount.html,
      csp: mount.csp,
      hostContext: { theme: 'light', toolInfo: { tool: mount.tool } },
      input: mount.input,
      result: mount.result,
      timeoutMs: 60_000,
    });
    const view = await (
      await frame.waitForFunction(
        () => {
          const timing = window.viewTiming;
          if (timing?.content === undefined) return false;
          const [navigation] = performance.getEntriesByType('navigation');
          return {
            ...timing,
            timeOrigin: performance.timeOrigin,
            contentLoaded: performance.timeOrigin + navigation.domContentLoadedEventEnd,
          };
        },
        undefined,
        { timeout: 60_000 },
      )
    ).jsonValue();
    const busyAfter = await mainThreadMs(metrics);
    const times = await host.bridgeTimes();
    if (host.errors.length > 0) throw new Error(`${mount.label}: ${host.errors.join('; ')}`);
    const mounted = at(times, 'mount');
    const initialized = at(times, 'initialized');
    const resultSent = at(times, 'tool-result');
    return {
      toInitialized: initialized - mounted,
      toDocument: view.timeOrigin - mounted,
      documentToLoaded: view.contentLoaded - view.timeOrigin,
      handshake: initialized - view.contentLoaded,
      toContent: view.content - resultSent,
      busy: Object.fromEntries(
        Object.entries(busyAfter).map(([name, value]) => [name, value - busyBefore[name]]),
      ),
      throughHost: times
        .filter((time) => time.at > resultSent && time.at <= view.content)
        .map((time) => time.event.replace(/ polymodal:\/\/outputs\/.*/, ' (output)')),
    };
  } finally {
    await host.close();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** The package a bundled input file comes from, as the report groups them. */
function partOf(input) {
  const found = input.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/);
  if (!found) return 'own';
  const [, name, file] = found;
  if (name === 'zod') return file.startsWith('v4/locales/') ? 'zodLocales' : 'zod';
  if (name === '@modelcontextprotocol/ext-apps') return 'extApps';
  // SDK 2.x: ext-apps' `App` is the client package's `Protocol`, on the core package's schemas.
  if (name === '@modelcontextprotocol/client' || name === '@modelcontextprotocol/core') return 'sdk';
  return 'other';
}

/**
 * A built view's size (bytes, gzip) and what its script is made of: main.ts bundled again as
 * scripts/build-views.mjs bundles it, with esbuild's metafile, after checking that this is the very script
 * inlined in the HTML (else the build options drifted, or dist is stale).
 */
async function sizeOf(folder, html) {
  const bundled = await bundleViewScript(folder, { metafile: true });
  const script = bundled.outputFiles[0].text.replaceAll('</script', '<\\/script');
  if (!html.includes(`<script>${script}</script>`)) {
    throw new Error(`${folder}: the built HTML does not inline main.ts as it bundles now (pnpm build)`);
  }
  const parts = { zod: 0, zodLocales: 0, extApps: 0, sdk: 0, own: 0, other: 0 };
  const [output] = Object.values(bundled.metafile.outputs);
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
    parts[partOf(input)] += bytesInOutput;
  const bytes = Buffer.from(html);
  return {
    bytes: bytes.length,
    gzipBytes: gzipSync(bytes).length,
    scriptBytes: Buffer.byteLength(script),
    parts,
  };
}

export async function measureViews() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-views-'));
  let sandbox;
  let client;
  try {
    const [{ startViewHost }] = await Promise.all([
      loadViewHost(scratch),
      buildViews([FLOOR], path.join(scratch, 'floor')),
    ]);
    const floorHtml = await readFile(path.join(scratch, 'floor', `${path.basename(FLOOR)}.html`), 'utf8');
    sandbox = await startSandboxProcess(['--speed', '100']);
    const root = path.join(scratch, 'root');
    await mkdir(root);
    client = new Client({ name: 'bench-views', version: '0.0.0' }, { capabilities: RENDERS_VIEWS });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [COMBINED_BIN],
        env: {
          PATH: process.env.PATH ?? '',
          POLYMODAL_BASE_URL: sandbox.env.POLYMODAL_BASE_URL,
          POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
          POLYMODAL_STATE_DIR: path.join(root, 'state'),
          POLYMODAL_ALLOWED_DIRS: root,
          POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
          POLYMODAL_LOG_LEVEL: 'error',
          // The test-only poll interval (loopback only): the meeting job is followed in seconds, not minutes.
          POLYMODAL_POLL_INTERVAL_MS: '50',
        },
        stderr: 'inherit',
      }),
    );
    const { tools } = await client.listTools();
    const views = [];
    for (const view of VIEWS) {
      const { tool, input, result } = await view.call(client, root);
      const uri = `ui://polymodal/${view.file}.html`;
      const listed = tools.find((candidate) => candidate.name === tool);
      if (listed?._meta?.ui?.resourceUri !== uri) throw new Error(`${tool} does not show ${uri}`);
      // Read as a host reads it; the sizes are the built file's, which must be what the server serves.
      const [read] = (await client.readResource({ uri })).contents;
      const built = await readFile(path.join(BUILT_VIEWS, `${view.file}.html`), 'utf8');
      if (read?.text !== built) throw new Error(`${uri} is not ${view.file}.html of packages/mcp/dist/views`);
      views.push({
        ...view,
        size: await sizeOf(path.join(repo, view.folder), built),
        mount: { label: view.label, html: built, csp: read._meta?.ui?.csp, tool: listed, input, result },
        runs: [],
        floorRuns: [],
      });
    }
    for (let round = 0; round < RUNS; round++) {
      for (const view of views) {
        const floorMount = { ...view.mount, label: `floor (${view.label})`, html: floorHtml, csp: undefined };
        const mountView = async () =>
          view.runs.push(await mountOnce(startViewHost, client, { ...view.mount, content: view.content }));
        const mountFloor = async () =>
          view.floorRuns.push(await mountOnce(startViewHost, client, { ...floorMount, content: 'floor' }));
        if (round % 2 === 0) {
          await mountFloor();
          await mountView();
        } else {
          await mountView();
          await mountFloor();
        }
      }
    }
    return {
      runs: RUNS,
      floor: { label: 'floor', size: await sizeOf(FLOOR, floorHtml) },
      views: views.map(({ label, size, runs, floorRuns }) => ({ label, size, runs, floorRuns })),
    };
  } finally {
    await client?.close();
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Median of a figure over the runs, and its per-round ratios view / floor: their median and range. */
function paired(runs, floorRuns, figure) {
  const ratios = runs.map((run, index) => figure(run) / figure(floorRuns[index]));
  return {
    view: median(runs.map(figure)),
    floor: median(floorRuns.map(figure)),
    ratio: median(ratios),
    lowest: Math.min(...ratios),
    highest: Math.max(...ratios),
  };
}

export function viewsReport({ runs, floor, views }) {
  const ms = (value) => value.toFixed(0);
  const kib = (bytes) => (bytes / 1024).toFixed(1);
  const sizeRow = (label, { bytes, gzipBytes, scriptBytes, parts }) =>
    `| ${label} | ${kib(bytes)} | ${kib(gzipBytes)} | ${(bytes / floor.size.bytes).toFixed(3)} | ${kib(scriptBytes)} | ${kib(parts.zod + parts.zodLocales)} (${kib(parts.zodLocales)}) | ${kib(parts.extApps)} | ${kib(parts.sdk)} | ${kib(parts.own)} | ${kib(parts.other)} |`;
  const renderRow = (view) => {
    const initialized = paired(view.runs, view.floorRuns, (run) => run.toInitialized);
    const content = paired(view.runs, view.floorRuns, (run) => run.toContent);
    const ratio = ({ ratio: middle, lowest, highest }) =>
      `**${middle.toFixed(2)}** (${lowest.toFixed(2)}–${highest.toFixed(2)})`;
    return `| ${view.label} | ${ms(initialized.view)} | ${ms(initialized.floor)} | ${ratio(initialized)} | ${ms(content.view)} | ${ms(content.floor)} | ${ratio(content)} |`;
  };
  const splitRow = (label, list) => {
    const of = (figure) => ms(median(list.map(figure)));
    const asked = [...new Set(list.flatMap((run) => run.throughHost))];
    return `| ${label} | ${of((run) => run.toDocument)} | ${of((run) => run.documentToLoaded)} | ${of((run) => run.handshake)} | ${of((run) => run.toInitialized)} | ${of((run) => run.busy.tasks)} | ${of((run) => run.busy.compile)} | ${of((run) => run.busy.script)} | ${of((run) => run.busy.styleLayout)} | ${asked.map((event) => `\`${event}\``).join(', ') || 'none'} |`;
  };
  return `### Views (MCP Apps): size and first render in headless Chromium (sandbox in a separate process)

Each view's HTML as built into packages/mcp/dist/views/ (what the combined server serves) and the floor,
bench/views-floor/: the least a view can be with ext-apps (an \`App\` that connects and writes the tool result's
text into the page), built the same way (scripts/build-views.mjs). The script's parts are the bytes each
package leaves in the minified bundle (esbuild's metafile of the same build).

| View | HTML (KiB) | gzip (KiB) | HTML / floor | Script (KiB) | zod (of which locales) | ext-apps | MCP SDK (client, core) | The view's own | Other |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${sizeRow(`${floor.label} (ext-apps \`App\` writing the result text)`, floor.size)}
${views.map((view) => sizeRow(view.label, view.size)).join('\n')}

First render: each view mounted ${runs} times with one real result of its tool (the combined bin over stdio against
the sandbox), and the floor ${runs} times with the same result, alternated, each mount in a fresh test host
(packages/mcp-common/test/support/view-host.ts: its own Chromium, the host page, the sandbox proxy on another
origin, the view's CSP, ext-apps' AppBridge). Medians in ms; ratios are the median of each round's view /
floor (lowest–highest). (a) mount start → the view's \`ui/notifications/initialized\` at the host; (b) tool
result sent → the view's content in its DOM (meeting viewer: the first transcript segment; player: the audio
or video has its metadata; deck: the first card's text; reading score: the first coloured word; floor: the
result's text).

| View | (a) mount → initialized | floor | (a) / floor | (b) result → content | floor | (b) / floor |
|---|---:|---:|---:|---:|---:|---:|
${views.map(renderRow).join('\n')}

Where the time goes (medians; the parts need not add up): (a) split at the view document's start and at its
DOMContentLoaded — mount → document (the proxy page loaded, the HTML handed to it, the srcdoc navigation
begun), document → DOMContentLoaded (the HTML parsed, the inline script compiled and run), then the rest of the
handshake. Then the renderer's main-thread time from mount start to the content, from Chromium's own counters
(Performance domain; host page, proxy and view share the renderer, so this is the mount's whole work): all
tasks but DevTools' (the benchmark's own probes), top-level script compile, script run, style + layout. Last,
what the view asked of the host between the result and its content.

| Mounted | Mount → document | Document → DOMContentLoaded | → initialized | (a) | Main thread, all tasks | Script compile | Script run | Style + layout | Through the host before the content |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
${splitRow(
  'floor (all its mounts)',
  views.flatMap((view) => view.floorRuns),
)}
${views.map((view) => splitRow(view.label, view.runs)).join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${viewsReport(await measureViews())}\n`);
}
