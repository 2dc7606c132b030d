/**
 * Rule S of the planner (see planner-model.ts): a message that spells out its steps is followed as written,
 * the way a model follows a prompt the person picked: each step's call once, in order, with the step's
 * arguments, skipping a tool that is not offered.
 */
import { composeAnswer } from './compose-answer.js';
import type { PlannerTurn, ToolExchange } from './conversation.js';
import type { PromptStep } from './prompt-steps.js';

export interface StepsInput {
  steps: readonly PromptStep[];
  exchanges: readonly ToolExchange[];
  offered: ReadonlySet<string>;
  /** What the person answered after the model last asked them something, if they did. */
  reply: string | undefined;
}

/**
 * The next step's call; a question when the next step needs a text the person has not given yet (the
 * prompts say "first ask me for it"); undefined when every step that can be taken was.
 */
export function followSteps({ steps, exchanges, offered, reply }: StepsInput): PlannerTurn | undefined {
  // The call that took the step before: "that jobId" is the job it started.
  let previous: ToolExchange | undefined;
  for (const step of steps) {
    const args = stepArguments(step, previous, reply);
    if (!offered.has(step.tool) || args === undefined) {
      previous = undefined;
      continue;
    }
    if (args === 'ask') return askFor(step, exchanges);
    const made = exchanges.find(
      (exchange) => exchange.name === step.tool && includes(exchange.arguments, args),
    );
    if (!made) return { kind: 'tool_call', name: step.tool, arguments: args };
    previous = made;
  }
  return undefined;
}

/** The step's arguments; 'ask' when they need the person's text; undefined when the step cannot be taken. */
function stepArguments(
  step: PromptStep,
  previous: ToolExchange | undefined,
  reply: string | undefined,
): Record<string, unknown> | 'ask' | undefined {
  let args = step.arguments;
  if (step.takesPreviousJob) {
    const jobId = previous?.result?.jobId;
    if (typeof jobId !== 'string') return undefined;
    args = { jobId, ...args };
  }
  const asked = step.askedArgument;
  if (asked !== undefined && args[asked] === undefined) {
    if (reply === undefined || reply.trim() === '') return 'ask';
    args = { ...args, [asked]: reply.trim() };
  }
  return args;
}

/** A call made with every argument of `wanted` (and maybe more): the step was taken. */
function includes(made: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([key, value]) => JSON.stringify(made[key]) === JSON.stringify(value));
}

function askFor(step: PromptStep, exchanges: readonly ToolExchange[]): PlannerTurn {
  const question = `To call ${step.tool} I need your text for "${step.askedArgument}": please send it.`;
  return {
    kind: 'answer',
    text: exchanges.length > 0 ? `${composeAnswer(exchanges)}\n\n${question}` : question,
  };
}
