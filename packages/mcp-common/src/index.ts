/**
 * @polymodal/mcp-common, the tool kit: what a tool file imports. A tool is a definition (`defineTool`), a
 * prompt too (`definePrompt`), a server's tools and prompts are a group (`toolGroup`); the long-job contract
 * (`respondWithJob`, `waitSeconds`, progress, handles), tool deadlines, error results, output links, remote
 * inputs, credit estimates and subtitles.
 * Running a server (the factory, the stdio/HTTP runners, tenants, metrics) is `@polymodal/mcp-common/host`.
 */
export { PLATFORM_WORK_ANNOTATIONS, READ_ONLY_ANNOTATIONS } from './annotations/tool-annotations.js';
export { BudgetExceededError } from './budget/budget-exceeded-error.js';
export { restartCredits } from './budget/entry-credits.js';
export { type CreditEstimate, estimateMeetingCredits } from './budget/estimate-meeting-credits.js';
export type { PlatformContext } from './context/create-platform-context.js';
export { createToolDeadline, type ToolDeadline } from './deadline/tool-deadline.js';
export { TOOL_ERROR_META_KEY, type ToolErrorHints, toolError, toolErrorFor } from './errors/tool-error.js';
export { jobOutputSchema, keepWaitingHint } from './jobs/job-handle.js';
export { type JobService, jobServicesOf, type McpServerName } from './jobs/job-services.js';
export { jobsServedBy, type ListJobsToolOptions, listJobsTool } from './jobs/list-jobs-tool.js';
export {
  createProgressReporter,
  createWaitSecondsSchema,
  type ProgressReporter,
  type ToolExtra,
  type WaitExtra,
} from './jobs/long-job-contract.js';
export {
  type JobOutcome,
  type JobPollRequest,
  type JobView,
  type PresentedJob,
  respondWithJob,
} from './jobs/respond-with-job.js';
export { outputLink } from './outputs/output-link.js';
export { MAX_OUTPUT_RESOURCE_BYTES } from './outputs/output-resources.js';
export { jobIds, registeredVoices } from './prompts/complete-from-ledger.js';
export { readablePaths } from './prompts/complete-paths.js';
export {
  type Completion,
  type CompletionRequest,
  type CompletionSource,
  matching,
  oneOf,
} from './prompts/completion.js';
export {
  definePrompt,
  type Prompt,
  type PromptArgs,
  type PromptSource,
  type PromptSpec,
  quoted,
  userMessage,
} from './prompts/define-prompt.js';
export type {
  CallToolResult,
  Icon,
  PromptMessage,
  ResourceLink,
  ToolAnnotations,
} from './protocol/sdk-types.js';
export { perContext } from './server/per-context.js';
export { svgIcon } from './server/tool-list-json.js';
export { formatSrt, formatVtt, type SubtitleCue } from './subtitles/format-subtitles.js';
export {
  type BoundGroup,
  defineTool,
  exceptTools,
  type Tool,
  type ToolGroup,
  type ToolHandler,
  type ToolSession,
  type ToolSpec,
  type ToolView,
  toolGroup,
} from './tools/define-tool.js';
export { resolveToolInputs } from './tools/resolve-tool-inputs.js';
export type { ToolDeps } from './tools/tool-deps.js';
export { builtViewFiles, defineView, type ViewSource } from './views/define-view.js';
