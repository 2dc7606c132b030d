#!/usr/bin/env node
/**
 * `pnpm demo`: an agent that reaches the Polymodal MCP servers over stdio and runs a built-in scenario
 * (meeting, video or flashcards; the first and last from the servers' prompts) or the task given in words, on the embedded sandbox unless
 * POLYMODAL_BASE_URL and POLYMODAL_API_KEY point at the real platform. It reasons with the platform's
 * shared LLM (the sandbox's planner offline) or with any OpenAI-compatible endpoint given with --llm-*.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPolymodal, type Polymodal } from '@polymodal/core';
import type { ChatModel } from './agent/chat-types.js';
import { createEndpointModel } from './agent/endpoint-model.js';
import { collectMcpTools } from './agent/mcp-tools.js';
import { createPlatformModel } from './agent/platform-model.js';
import { runAgent } from './agent/run-agent.js';
import {
  LLM_API_KEY_VARIABLE,
  LLM_BASE_URL_VARIABLE,
  LLM_MODEL_VARIABLE,
  type ModelChoice,
  resolveModelChoice,
} from './model-options.js';
import { decideOutputStyle } from './output-style.js';
import { openPlatform } from './platform.js';
import {
  createConsoleReporter,
  createJsonReporter,
  createSecretMask,
  type ModelSource,
  type Reporter,
} from './reporter.js';
import { isScenarioName, SCENARIOS, type ScenarioName, scenarioTask, writeSamples } from './scenarios.js';
import { connectServer, type ServerEnv, serverBin } from './servers.js';
import { prepareTask, type TaskPart } from './task-prompts.js';

const HELP = `Usage: pnpm demo [--scenario meeting|video|flashcards] [--json] [--verbose] [--max-steps N]
                 [--llm-base-url URL --llm-model ID] ["<task in words>"]

An agent uses the Polymodal meeting, media and speech MCP servers (spawned over stdio, as a desktop host
does). Without a task it runs a built-in scenario, from the servers' prompts where one fits (fetched with
prompts/get, as a host does when a person picks them):
  meeting     (default) the prompts meeting_minutes (the bundled sample meeting, spoken in English, minutes
              in Thai), check_thai_reading (a bundled sample of a student's Thai reading) and thai_transcript
              (a Thai speech sample, with the streaming recogniser), and one line of words: also export the
              transcript (SRT) and translation (VTT) and synthesise the action items as Thai speech (a WAV);
              files go to ./demo-output
  video       make a 5-second video with a catalog text-to-video model and wait for it (an MP4)
  flashcards  the prompt video_flashcards: Thai-to-Chinese flashcards from a bundled 2-second sample clip
              (a JSON file)
A task in words can name the samples, written to ./demo-output/media.

With no POLYMODAL_BASE_URL the demo starts the embedded sandbox (a local simulation of the platform: no key,
no network) and its model is the sandbox's deterministic planner. With POLYMODAL_BASE_URL and
POLYMODAL_API_KEY set it runs unchanged against that platform and its shared LLM.

Options:
  --scenario NAME      meeting (default), video or flashcards
  --json               one JSON event per line on stdout, as it happens (diagnostics on stderr)
  --verbose            also show the servers' stderr logs and the protocol version each negotiated
  --max-steps N        model turns allowed (default 12)
  --llm-base-url URL   any OpenAI-compatible endpoint (…/v1) instead of the platform's shared LLM
                       (https, or http to localhost); or ${LLM_BASE_URL_VARIABLE}
  --llm-model ID       the model: of that endpoint (required with it), else one the platform lists
                       (default: the first); or ${LLM_MODEL_VARIABLE}
  --llm-api-key KEY    the endpoint's key; prefer ${LLM_API_KEY_VARIABLE}, which the process
                       list does not show
  --help               show this text

Output is plain (no colour, no redrawn lines) when stdout is not a terminal or NO_COLOR is set;
FORCE_COLOR forces colour.`;

const DEFAULT_MAX_STEPS = 12;

/** The servers the agent reaches, spawned over stdio: [name, package, bin]. */
const SERVERS: readonly (readonly [string, string, string])[] = [
  ['meeting', '@polymodal/mcp-meeting', 'polymodal-mcp-meeting'],
  ['media', '@polymodal/mcp-media', 'polymodal-mcp-media'],
  ['speech', '@polymodal/mcp-speech', 'polymodal-mcp-speech'],
];

let reporter: Reporter | undefined;
// Every key this run knows of, masked in whatever it prints (stdout and stderr).
const secrets = new Set<string>(
  [process.env.POLYMODAL_API_KEY, process.env[LLM_API_KEY_VARIABLE]].filter(
    (secret): secret is string => typeof secret === 'string' && secret.trim() !== '',
  ),
);
const mask = (text: string) => createSecretMask([...secrets])(text);

interface DemoOptions {
  /** Where the run is reported: the console, or one JSON event per line. */
  reporter: Reporter;
  verbose: boolean;
  maxSteps: number;
  /** The built-in scenario to run, or undefined for the task in `words`. */
  scenario: ScenarioName | undefined;
  words: string;
  choice: ModelChoice;
}

/** The command line, checked before anything starts: a refused option costs no sandbox and no request. */
function readOptions(): DemoOptions | 'help' {
  // `pnpm demo -- --json` (the npm habit) hands the script a literal `--`, after which parseArgs would take
  // every option for words of the task: one leading `--` is dropped.
  const argv = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: {
      json: { type: 'boolean' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean' },
      'max-steps': { type: 'string' },
      scenario: { type: 'string' },
      'llm-base-url': { type: 'string' },
      'llm-model': { type: 'string' },
      'llm-api-key': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (values['llm-api-key']) secrets.add(values['llm-api-key']);
  if (values.help) return 'help';
  // Before the checks, so that a refused option is reported in the format asked for.
  reporter = values.json
    ? createJsonReporter({ mask })
    : createConsoleReporter({ style: decideOutputStyle(process.stdout, process.env), mask });
  const maxSteps = values['max-steps'] ? Number(values['max-steps']) : DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new Error('--max-steps must be a positive integer');
  const words = positionals.join(' ').trim();
  if (values.scenario !== undefined && !isScenarioName(values.scenario)) {
    throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')} (got "${values.scenario}").`);
  }
  if (values.scenario !== undefined && words !== '') {
    throw new Error('Give either --scenario or a task in words, not both.');
  }
  return {
    reporter,
    verbose: values.verbose === true,
    maxSteps,
    scenario: words === '' ? ((values.scenario as ScenarioName | undefined) ?? 'meeting') : undefined,
    words,
    choice: resolveModelChoice(values, process.env),
  };
}

async function main(): Promise<number> {
  const options = readOptions();
  if (options === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const outputDir = path.resolve(process.env.POLYMODAL_OUTPUT_DIR ?? 'demo-output');
  const mediaDir = path.join(outputDir, 'media');
  await mkdir(mediaDir, { recursive: true });

  const reporting = options.reporter;
  const platform = await openPlatform(process.env);
  secrets.add(platform.apiKey);
  // The embedded sandbox is new on every run, so its job ids are too: keep its job ledger per run.
  const scratch = platform.embedded ? await mkdtemp(path.join(os.tmpdir(), 'polymodal-demo-')) : undefined;
  const stateDir = scratch ?? process.env.POLYMODAL_STATE_DIR;
  const polymodal = createPolymodal({ baseUrl: platform.baseUrl, apiKey: platform.apiKey, ledger: false });
  let model: (ChatModel & { close?(): Promise<void> }) | undefined;
  try {
    reporting.emit({ type: 'platform', baseUrl: platform.baseUrl, embedded: platform.embedded });
    const { samples, written } = await writeSamples(mediaDir, options.scenario ?? 'all');
    model = await openModel(options.choice, { polymodal, embedded: platform.embedded, reporter: reporting });
    const servers = await connectServers(options, {
      POLYMODAL_BASE_URL: platform.baseUrl,
      POLYMODAL_API_KEY: platform.apiKey,
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: outputDir,
      ...(stateDir ? { POLYMODAL_STATE_DIR: stateDir } : {}),
    });
    try {
      const task: TaskPart[] = options.scenario
        ? scenarioTask(options.scenario, samples)
        : [{ words: options.words }];
      return await runTask({ options, model, servers, task, written, reporter: reporting });
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  } finally {
    await model?.close?.();
    await polymodal.close();
    await platform.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** The model the agent reasons with: the endpoint given, or the platform's shared LLM (the sandbox's planner). */
async function openModel(
  choice: ModelChoice,
  { polymodal, embedded, reporter }: { polymodal: Polymodal; embedded: boolean; reporter: Reporter },
): Promise<ChatModel & { close?(): Promise<void> }> {
  const model =
    choice.kind === 'endpoint'
      ? createEndpointModel(choice)
      : await createPlatformModel(polymodal, choice.model);
  const source: ModelSource = choice.kind === 'endpoint' ? 'endpoint' : embedded ? 'sandbox' : 'platform';
  reporter.emit({
    type: 'model',
    model: model.id,
    source,
    ...(choice.kind === 'endpoint' ? { endpoint: choice.baseUrl } : {}),
  });
  return model;
}

/** Spawns the three servers over stdio, as a desktop host does, and reports what each negotiated. */
async function connectServers(options: DemoOptions, env: ServerEnv) {
  const servers = await Promise.all(
    SERVERS.map(([name, packageName, binName]) =>
      connectServer({
        name,
        bin: serverBin(packageName, binName),
        env,
        onLog: options.verbose ? (line) => process.stderr.write(mask(`[${name}] ${line}\n`)) : undefined,
      }),
    ),
  );
  for (const server of servers) {
    const { name, protocolVersion, era } = server;
    options.reporter.emit({ type: 'server', server: name, protocolVersion, era });
    if (options.verbose) process.stderr.write(mask(`[${name}] connected: MCP ${protocolVersion} (${era})\n`));
  }
  return servers;
}

/**
 * Runs the agent on `task` (its prompts fetched from the servers, as a host does) with every server's tools;
 * 0 when it answered and every tool call succeeded.
 */
async function runTask(run: {
  options: DemoOptions;
  model: ChatModel;
  servers: Awaited<ReturnType<typeof connectServers>>;
  task: readonly TaskPart[];
  written: readonly string[];
  reporter: Reporter;
}): Promise<number> {
  const { options, reporter } = run;
  const tools = await collectMcpTools(run.servers, reporter);
  const task = await prepareTask(run.task, run.servers);
  reporter.emit({
    type: 'task',
    text: task.text,
    tools: tools.length,
    ...(options.scenario ? { scenario: options.scenario } : {}),
    parts: task.parts,
  });
  const result = await runAgent({
    model: run.model,
    tools,
    task: task.messages,
    maxSteps: options.maxSteps,
    reporter,
  });
  reporter.emit({ type: 'answer', text: result.answer });
  const files = result.toolCalls
    .map((call) => call.structured?.path ?? call.structured?.savedPath)
    .filter((value): value is string => typeof value === 'string');
  reporter.emit({ type: 'files', paths: [...run.written, ...new Set(files)] });
  return result.stopped === 'answer' && result.toolCalls.every((call) => call.ok) ? 0 : 1;
}

// Output piped into `head` and the like: stop quietly when the reader goes away.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main().then(
  (code) => {
    reporter?.finish();
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = mask(error instanceof Error ? error.message : String(error));
    reporter?.emit({ type: 'error', message });
    reporter?.finish();
    process.stderr.write(`demo failed: ${message}\n`);
    process.exitCode = 1;
  },
);
