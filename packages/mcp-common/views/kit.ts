/**
 * What the Polymodal views (MCP Apps) do alike: their `App` following the host's theme, the connection to
 * the host, a tool result's text, the state of a long job and its "Check again". Browser code: a view's
 * main.ts imports it as `@polymodal/mcp-common/views` (an entry of the workspace only, pointing at this
 * source: it is not published) and scripts/build-views.mjs bundles it into the view's script; no Node module
 * imports it.
 */

import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/client';
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
// Types only: the bundle takes nothing from mcp-common's Node entry.
import type { jobOutputSchema } from '@polymodal/mcp-common';
import type { z } from 'zod';

/** How long one "Check again" waits on the job: well inside a host's ~60 s cut-off of a tool call. */
const CHECK_WAIT_SECONDS = 10;

const OUTPUT_PREFIX = 'polymodal://outputs/';

/**
 * A long job's structured result as the views read it: the long-job tools' output schema (`jobOutputSchema`,
 * whose further properties each tool adds), every field possibly absent (a failed tool sends none).
 */
export type JobFacts = Partial<z.output<typeof jobOutputSchema>>;

/**
 * Where a long job's result stands: the tool failed (its text says why), the job is still running, or it
 * has stopped (and the view shows what it made, or why it made nothing).
 */
export type JobState = 'tool-failed' | 'running' | 'stopped';

export function jobStateOf(result: CallToolResult, facts: JobFacts): JobState {
  if (result.isError) return 'tool-failed';
  return facts.done === false ? 'running' : 'stopped';
}

/**
 * The view's `App`, which follows the host's theme as it changes. A view's CSP forbids eval, and zod compiles
 * its parsers with `new Function` unless told not to: ext-apps' `App` tells it (`allowUnsafeEval` is false by
 * default), before it parses anything.
 */
export function createViewApp(name: string): App {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  app.addEventListener('hostcontextchanged', (context) => applyTheme(context));
  return app;
}

/**
 * Connects to the host (once the view has set its handlers), then takes the host's theme. A failed connect
 * is said in `status` and leaves the view's own message on screen.
 */
export function connectView(app: App, status: HTMLElement): void {
  // An IIFE has no top-level await.
  app.connect().then(
    () => applyTheme(app.getHostContext()),
    (error: unknown) => {
      status.textContent = `Could not reach the host: ${messageOf(error)}`;
    },
  );
}

/** The host's theme, and its style variables (base.css's `--color-*` fallbacks give way to them). */
function applyTheme(context: ReturnType<App['getHostContext']>): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

/** A tool result's text items, a line each: what a failed tool says. */
export function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .map((item) => (item.type === 'text' ? item.text : ''))
    .filter(Boolean)
    .join('\n');
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The result's first link to a saved output (`polymodal://outputs/`, read through the host) that `accepts` takes. */
export function outputLinkOf(
  result: CallToolResult,
  accepts: (link: ResourceLink) => boolean,
): ResourceLink | undefined {
  return result.content?.find(
    (item): item is ResourceLink =>
      item.type === 'resource_link' && item.uri.startsWith(OUTPUT_PREFIX) && accepts(item),
  );
}

/** What a view shows of a long job while it runs: its title, status line, progress bar and "Check again". */
export interface JobElements {
  title: HTMLElement;
  status: HTMLElement;
  progress: HTMLProgressElement;
  refresh: HTMLButtonElement;
}

/**
 * Shows what a long job's result says before the view's content: the tool's failure, or, while the job
 * runs, its state and progress with "Check again". Returns false when the job has stopped: the view then
 * shows what it made (or why it made nothing).
 */
export function showJobState(
  elements: JobElements,
  result: CallToolResult,
  facts: JobFacts,
  job: { id: string | undefined; runningTitle: string; stage?: string | undefined },
): boolean {
  const state = jobStateOf(result, facts);
  const isRunning = state === 'running';
  elements.refresh.hidden = !(isRunning && job.id);
  elements.progress.hidden = !isRunning;
  if (isRunning) elements.progress.value = facts.progress ?? 0;
  if (state === 'tool-failed') {
    elements.title.textContent = 'The tool failed';
    elements.status.textContent = textOf(result);
    return true;
  }
  if (!isRunning) return false;
  elements.title.textContent = job.runningTitle;
  const stage = job.stage ? ` (${job.stage})` : '';
  const percent = facts.progress === undefined ? '' : `, ${Math.round(facts.progress)}%`;
  elements.status.textContent = `Job ${job.id ?? ''} is ${facts.status ?? 'running'}${stage}${percent}. Check again to see whether it has finished.`;
  return true;
}

export interface CheckAgain {
  /** The tool that continues the job, and its arguments but the wait. */
  name: string;
  arguments: Record<string, unknown>;
  /** Shows the tool's answer. */
  show(result: CallToolResult): unknown;
  /** What is checked, as the status says when the check fails ("Could not check the job: …"). */
  what?: string;
}

/**
 * "Check again": the tool that continues the job, through the host, for one bounded wait; the button is
 * disabled meanwhile.
 */
export async function checkAgain(
  app: App,
  elements: Pick<JobElements, 'status' | 'refresh'>,
  check: CheckAgain,
): Promise<void> {
  elements.refresh.disabled = true;
  elements.status.textContent = 'Checking…';
  try {
    const result = await app.callServerTool({
      name: check.name,
      arguments: { ...check.arguments, waitSeconds: CHECK_WAIT_SECONDS },
    });
    await check.show(result);
  } catch (error) {
    elements.status.textContent = `Could not check ${check.what ?? 'the job'}: ${messageOf(error)}`;
  } finally {
    elements.refresh.disabled = false;
  }
}
