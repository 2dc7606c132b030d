#!/usr/bin/env node
// The cost of following a job as an MCP Task: `tasks/get` of a meeting job beside `get_meeting` of the same
// job (`waitSeconds: 0`, as a host without tasks reads it), alternated from one 2026-07-28 client, on the meeting
// server over Streamable HTTP (stateless, file ledger) against the sandbox (separate process, clock held):
// first while the job runs (each read a real status read when the job's read interval allows one, the same
// rule for both), then once it is done (the finished result, from the ledger). Medians, p95, and the
// ratio of the medians (target ≤ 1.2). Imported by run.mjs; run alone, `node tasks.mjs` prints its section.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { keepAliveAgent, percentile, post, startHttpServer } from './http-server-process.mjs';
import { writeRecordings } from './meeting-jobs-http.mjs';
import { binOf, startSandboxProcess, total } from './sandbox-process.mjs';

const ROUNDS = Number(process.env.BENCH_TASKS_ROUNDS ?? 200);
const TARGET_RATIO = 1.2;
const TASKS = 'io.modelcontextprotocol/tasks';

let nextId = 1;

/** One 2026-07-28 request (declaring the extension unless `plain`); resolves its result, throws on an error. */
async function request(url, agent, method, params, name, plain = false) {
  const answer = await post(
    url,
    agent,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench-tasks', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': plain ? {} : { extensions: { [TASKS]: {} } },
        },
      },
    },
    undefined,
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
  );
  if (!answer.message?.result) throw new Error(`${method}: ${JSON.stringify(answer.message)}`);
  return answer.message.result;
}

/** Alternates the two reads `ROUNDS` times; `check` says what each answer must be. */
async function alternate(url, agent, taskId, check) {
  const times = { task: [], tool: [] };
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    const task = await request(url, agent, 'tasks/get', { taskId }, taskId);
    times.task.push(performance.now() - started);
    started = performance.now();
    const tool = await request(
      url,
      agent,
      'tools/call',
      { name: 'get_meeting', arguments: { jobId: taskId } },
      'get_meeting',
      // As a host without tasks reads it.
      true,
    );
    times.tool.push(performance.now() - started);
    check(task, tool);
  }
  return times;
}

export async function measureTasks() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-tasks-'));
  let sandbox;
  let server;
  const agent = keepAliveAgent(1);
  try {
    sandbox = await startSandboxProcess();
    await sandbox.control.holdClock();
    const mediaDir = path.join(scratch, 'media');
    const [file] = await writeRecordings(mediaDir, 1);
    server = await startHttpServer(binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting'), {
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
    });
    const created = await request(
      server.url,
      agent,
      'tools/call',
      { name: 'summarize_meeting', arguments: { path: file } },
      'summarize_meeting',
    );
    if (created.resultType !== 'task')
      throw new Error(`summarize_meeting did not answer with a task: ${JSON.stringify(created)}`);
    const { taskId } = created;
    const running = await alternate(server.url, agent, taskId, (task, tool) => {
      if (task.status !== 'working' || tool.structuredContent?.done !== false) {
        throw new Error(
          `the job ended early: ${JSON.stringify(task).slice(0, 300)} / ${JSON.stringify(tool).slice(0, 300)}`,
        );
      }
    });
    await sandbox.control.advance(3_600_000);
    // The job's end, read once by either path.
    await request(
      server.url,
      agent,
      'tools/call',
      { name: 'get_meeting', arguments: { jobId: taskId, waitSeconds: 30 } },
      'get_meeting',
      true,
    );
    const done = await alternate(server.url, agent, taskId, (task, tool) => {
      if (
        task.status !== 'completed' ||
        JSON.stringify(task.result.structuredContent) !== JSON.stringify(tool.structuredContent)
      ) {
        throw new Error('tasks/get and get_meeting disagree on the finished job');
      }
    });
    const counters = await sandbox.control.counters();
    return { runs: { running, done }, uploads: total(counters.uploads), jobs: total(counters.jobsCreated) };
  } finally {
    agent.destroy();
    await server?.stop();
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

export function tasksReport({ runs, uploads, jobs }) {
  const rows = Object.entries({ 'running job': runs.running, 'finished job': runs.done }).map(
    ([label, times]) => {
      const task = percentile(times.task, 50);
      const tool = percentile(times.tool, 50);
      return `| ${label} | ${task.toFixed(2)} | ${percentile(times.task, 95).toFixed(2)} | ${tool.toFixed(2)} | ${percentile(times.tool, 95).toFixed(2)} | **${(task / tool).toFixed(2)}** |`;
    },
  );
  return `### Following a job as a task: \`tasks/get\` beside \`get_meeting\` (meeting server over Streamable HTTP, stateless, file ledger)

One meeting job created as a task (\`summarize_meeting\` from a 2026-07-28 request declaring the extension), then
\`tasks/get\` and \`get_meeting\` (\`waitSeconds: 0\`, sent without the extension, as a host without tasks reads it) of it
alternated ${ROUNDS} times each from one client, while it runs
(sandbox clock held) and once it is done. The sandbox counted ${uploads} upload(s) and ${jobs} job(s).

| Job | \`tasks/get\` median (ms) | p95 | \`get_meeting\` median (ms) | p95 | Ratio of medians (target ≤ ${TARGET_RATIO}) |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(tasksReport(await measureTasks()));
}
