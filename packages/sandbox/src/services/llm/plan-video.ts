/**
 * Rule 6 of the planner, making a video: from an image named in the task with `image_to_video`, else with
 * `generate_video` and the first text-to-video model of the catalog (read first with
 * `list_video_models`), its duration and aspect ratio fitted to what the model allows.
 */
import type { PlannerTurn, ToolExchange } from './conversation.js';
import { IMAGE_REFERENCE, SECONDS } from './task-text.js';

/** Rule 6: an image-to-video call, the catalog read, or a catalog video call; undefined when none applies. */
export function planVideo(
  task: string,
  offered: ReadonlySet<string>,
  exchanges: readonly ToolExchange[],
): PlannerTurn | undefined {
  const called = (name: string) => exchanges.some((exchange) => exchange.name === name);
  const prompt = videoPrompt(task);
  const seconds = Number(SECONDS.exec(task)?.[1] ?? Number.NaN);
  const image = IMAGE_REFERENCE.exec(task)?.[1];
  if (image && offered.has('image_to_video')) {
    if (called('image_to_video')) return undefined;
    return {
      kind: 'tool_call',
      name: 'image_to_video',
      arguments: {
        image,
        prompt,
        ...(Number.isFinite(seconds) ? { duration: Math.min(10, Math.max(2, seconds)) } : {}),
        waitSeconds: 0,
      },
    };
  }
  if (!offered.has('generate_video') || called('generate_video')) return undefined;
  if (offered.has('list_video_models') && !called('list_video_models')) {
    return { kind: 'tool_call', name: 'list_video_models', arguments: {} };
  }
  const catalog = [...exchanges].reverse().find((exchange) => exchange.name === 'list_video_models');
  const model = catalog ? textToVideoModel(catalog) : undefined;
  if (!model) return undefined;
  // Unknown parameters (only the text was readable): the seconds asked for go as they are, and the
  // service snaps them; a ratio is sent only when the catalog shows it is allowed.
  const durationParameter = model.parameters?.find((parameter) => parameter.name === 'duration');
  const duration = !Number.isFinite(seconds)
    ? undefined
    : model.parameters === undefined
      ? seconds
      : durationParameter
        ? fitToParameter(seconds, durationParameter)
        : undefined;
  const ratios = model.parameters?.find((parameter) => parameter.name === 'aspect_ratio')?.values ?? [];
  const ratio = aspectRatio(task);
  return {
    kind: 'tool_call',
    name: 'generate_video',
    arguments: {
      model: model.id,
      prompt,
      ...(duration === undefined ? {} : { duration }),
      ...(ratio && ratios.includes(ratio) ? { aspectRatio: ratio } : {}),
      waitSeconds: 0,
    },
  };
}

interface CatalogParameterView {
  name: string;
  values?: unknown[];
  minimum?: number;
  maximum?: number;
}

interface CatalogEntry {
  id: string;
  category: string;
  /** Undefined when only the text lines were readable: the parameters are then unknown. */
  parameters?: CatalogParameterView[];
}

/**
 * The first text-to-video model of a `list_video_models` result: from its structured content, else from its
 * text lines (`- <id> (<category>): ...`), which survive a result cut short.
 */
function textToVideoModel(exchange: ToolExchange): CatalogEntry | undefined {
  const listed = exchange.result?.models;
  const models: CatalogEntry[] = Array.isArray(listed)
    ? (listed as CatalogEntry[]).filter((model) => typeof model?.id === 'string')
    : [...exchange.text.matchAll(/^- (\S+) \(([^)]+)\)/gm)].map((match) => ({
        id: match[1] as string,
        category: match[2] as string,
      }));
  return models.find((model) => model.category === 'text-to-video');
}

/** Seconds snapped to the nearest allowed value (the lower one on a tie), or clamped to the range. */
function fitToParameter(seconds: number, parameter: CatalogParameterView): number {
  const allowed = (parameter.values ?? []).filter((value): value is number => typeof value === 'number');
  if (allowed.length > 0) {
    return allowed.reduce((best, value) =>
      Math.abs(value - seconds) < Math.abs(best - seconds) ||
      (Math.abs(value - seconds) === Math.abs(best - seconds) && value < best)
        ? value
        : best,
    );
  }
  return Math.min(parameter.maximum ?? seconds, Math.max(parameter.minimum ?? seconds, seconds));
}

function videoPrompt(task: string): string {
  const described = /\bvideo (?:of|showing|about|where)\s+(.+?)(?:[.!?](?:\s|$)|,\s*then\b|$)/is.exec(
    task,
  )?.[1];
  const sentence = described ?? /^(.+?)(?:[.!?](?:\s|$)|$)/s.exec(task.trim())?.[1] ?? task;
  const prompt = sentence.replace(/\s+/g, ' ').trim();
  return prompt.length > 500 ? prompt.slice(0, 500) : prompt;
}

function aspectRatio(task: string): string | undefined {
  const explicit = /\b(\d{1,2}:\d{1,2})\b/.exec(task)?.[1];
  if (explicit) return explicit;
  if (/\b(vertical|portrait)\b/i.test(task)) return '9:16';
  if (/\bsquare\b/i.test(task)) return '1:1';
  return undefined;
}
