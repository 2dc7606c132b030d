/**
 * Turns any failure into an MCP tool result an agent can act on: `isError: true`, a first line that says
 * what failed and what to do next, never a stack trace and never a secret.
 *
 * No `structuredContent` is attached: the SDK client validates structured content against the tool's
 * output schema even on error results, and an error shape would not fit the success schema. The error
 * kind and status travel in `_meta` instead, for clients that want them.
 */

import { redactSecrets } from '@polymodal/core/config';
import {
  ApiError,
  ConfigError,
  ConnectionError,
  JobFailedError,
  PollingTimeoutError,
  PolymodalError,
  ResponseValidationError,
  TimeoutError,
  ValidationError,
} from '@polymodal/core/errors';
import { BudgetExceededError } from '../budget/budget-exceeded-error.js';
import type { CallToolResult } from '../protocol/sdk-types.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import { hideServerPaths } from './hide-server-paths.js';

/** Facts the tool knows that make an error message actionable. */
export interface ToolErrorHints {
  /** Id of the job the call was about. */
  jobId?: string | undefined;
  /**
   * What a 404 is about when it is not a job (e.g. "the model \"x\"", "the Thai ASR configuration"), so
   * the message names the real thing instead of a job.
   */
  resource?: string | undefined;
  /** Current state of that job, when known (named on 409). */
  jobState?: string | undefined;
  /** What the recording or request costs, in credits (named on 402). */
  credits?: number | undefined;
  /** Credits the account has, when known (named on 402). */
  availableCredits?: number | undefined;
  /** Human description of the limit that applies (named on 413), e.g. "2 hours, 2 GiB". */
  limit?: string | undefined;
  /** Extra sentence appended to the message, e.g. which tool to call next. */
  next?: string | undefined;
}

export interface ToolErrorContext {
  secrets: readonly string[];
  /**
   * Server directories the caller must not see (a remote caller): a path inside one is named relative to
   * it, the directory itself as "a server directory".
   */
  hiddenDirs?: readonly string[];
  hints?: ToolErrorHints;
}

export interface ToolErrorInfo {
  kind: string;
  status?: number;
  message: string;
}

/** `_meta` key under which the error kind/status are attached. */
export const TOOL_ERROR_META_KEY = 'polymodal/error';

/**
 * The error result of a tool call in its context: the context's secrets redacted and, for a remote caller,
 * its server directories hidden. Every tool answers a failure with this (the meeting tools first gather
 * hints the status names, see `meetingToolError`).
 */
export function toolErrorFor(error: unknown, tools: ToolDeps, hints?: ToolErrorHints): CallToolResult {
  return toolError(error, {
    secrets: tools.platform.secrets,
    hiddenDirs: tools.platform.hiddenDirs(),
    ...(hints ? { hints } : {}),
  });
}

export function toolError(error: unknown, context: ToolErrorContext): CallToolResult {
  const info = describeToolError(error, context);
  return {
    isError: true,
    content: [{ type: 'text', text: info.message }],
    _meta: { [TOOL_ERROR_META_KEY]: info },
  };
}

/** The text and kind `toolError` would produce, for callers that compose their own result. */
export function describeToolError(error: unknown, context: ToolErrorContext): ToolErrorInfo {
  const hints = context.hints ?? {};
  const raw = rawDescription(error, hints);
  const message = hideServerPaths(
    redactSecrets(hints.next ? `${raw.message} ${hints.next}` : raw.message, context.secrets),
    context.hiddenDirs ?? [],
  );
  return raw.status === undefined
    ? { kind: raw.kind, message }
    : { kind: raw.kind, status: raw.status, message };
}

function rawDescription(error: unknown, hints: ToolErrorHints): ToolErrorInfo {
  if (ApiError.isInstance(error)) return describeApiError(error, hints);
  if (ValidationError.isInstance(error)) {
    const issues = error.issues
      .filter((issue) => !error.message.includes(issue.message))
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
    return {
      kind: 'validation',
      message: `invalid input: ${error.message}${issues.length > 0 ? ` (${issues.join('; ')})` : ''}`,
    };
  }
  // The budget's refusal in its own words (the budget, what was spent, the cost, when to try again).
  if (BudgetExceededError.isInstance(error)) return { kind: 'budget', message: error.message };
  if (ConfigError.isInstance(error)) {
    return { kind: 'config', message: `configuration error: ${error.message}` };
  }
  if (JobFailedError.isInstance(error)) {
    return {
      kind: 'job-failed',
      message:
        `job ${error.jobId} ended ${error.status}` +
        (error.errorMessage ? `: ${error.errorMessage}` : '') +
        '. Inspect it with the get tool; if the cause was temporary, retry it.',
    };
  }
  if (PollingTimeoutError.isInstance(error)) return { kind: 'polling-timeout', message: error.message };
  if (ConnectionError.isInstance(error)) {
    return {
      kind: 'connection',
      message:
        `could not reach the platform: ${error.message}. Check POLYMODAL_BASE_URL and the network, then try again` +
        (error.requestMayHaveArrived
          ? ' (the request may have reached the platform: check before resubmitting).'
          : '.'),
    };
  }
  if (TimeoutError.isInstance(error)) {
    return {
      kind: 'timeout',
      message: `the platform did not answer in time: ${error.message}. Try again shortly.`,
    };
  }
  if (ResponseValidationError.isInstance(error)) {
    return {
      kind: 'response-validation',
      message: `the platform sent an unexpected response: ${error.message}`,
    };
  }
  if (isAbortError(error))
    return { kind: 'aborted', message: 'the operation was cancelled before it finished.' };
  if (PolymodalError.isInstance(error)) return { kind: error.kind, message: error.message };
  const system = systemErrorOf(error);
  if (system) {
    // A Node system error's message names the server's own paths (the state directory, a temp file): of no
    // use to a caller, who may be a remote tenant, and not theirs to see. The code and the call say enough.
    return {
      kind: 'internal',
      message: `internal error: ${system.code} during ${system.syscall} on the server. Try again; if it persists, the server's operator can see the details in its log.`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'internal', message: `internal error: ${message}` };
}

/** The code and the system call of a Node system error (EMFILE, ENOSPC, EACCES...), else undefined. */
function systemErrorOf(error: unknown): { code: string; syscall: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof syscall === 'string'
    ? { code, syscall }
    : undefined;
}

function describeApiError(error: ApiError, hints: ToolErrorHints): ToolErrorInfo {
  const server = error.serverMessage ? ` (platform said: ${error.serverMessage})` : '';
  const job = hints.jobId ? `job ${hints.jobId}` : 'the job';
  const status = error.status;
  let message: string;
  switch (status) {
    case 400:
      message = `HTTP 400: the platform rejected the request as invalid${server}. Fix the arguments and call again.`;
      break;
    case 401:
      message =
        `HTTP 401: the platform refused the API key (missing, invalid, revoked or expired)${server}. ` +
        'Check POLYMODAL_API_KEY in the server configuration.';
      break;
    case 402: {
      const cost =
        hints.credits !== undefined
          ? `this recording costs ${hints.credits} credits (4 per started minute, minimum set by the platform)`
          : 'the recording costs more credits than the account has (4 per started minute, minimum set by the platform)';
      const available =
        hints.availableCredits !== undefined ? `; the account has ${hints.availableCredits}` : '';
      message = `HTTP 402: not enough credits; ${cost}${available}${server}. Add credits or use a shorter recording. No job was created.`;
      break;
    }
    case 403:
      message = `HTTP 403: this feature is not available to this account${server}.`;
      break;
    case 404:
      message = hints.jobId
        ? `HTTP 404: job ${hints.jobId} is unknown or belongs to another user${server}. List jobs to find a valid id.`
        : `HTTP 404: ${hints.resource ?? 'what was asked for'} was not found${server}. Check the id or name you gave.`;
      break;
    case 409:
      message =
        `HTTP 409: ${job} is ${hints.jobState ? `in state ${hints.jobState}` : 'not in a state'} that does not allow this operation${server}. ` +
        'Read its status first (retry needs FAILED or CANCELLED; delete, resummarize and retranslate need processing to have stopped).';
      break;
    case 413:
      message =
        `HTTP 413: the recording exceeds the platform's limit${hints.limit ? ` (${hints.limit})` : ''}${server}. ` +
        'Shorten, split or compress it.';
      break;
    case 429:
      message = `HTTP 429: too many requests${server}. Wait${retryAfter(error)} and try again.`;
      break;
    case 503:
      message = `HTTP 503: the platform is temporarily unavailable${server}. Try again shortly.`;
      break;
    default:
      message =
        status >= 500
          ? `HTTP ${status}: the platform failed to process the request${server}. Try again later.`
          : `HTTP ${status}: the request failed${server}.`;
  }
  return { kind: 'api', status, message };
}

function retryAfter(error: ApiError): string {
  return error.retryAfterMs !== undefined ? ` ${Math.ceil(error.retryAfterMs / 1000)} s` : ' a moment';
}

export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'AbortError' ||
      (error as { name?: unknown }).name === 'TimeoutError') &&
    !PolymodalError.isInstance(error)
  );
}
