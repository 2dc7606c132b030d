/**
 * Checks a catalog video request against the model entry of the live catalog, so that a request the
 * service would refuse costs nothing and the error names the field at fault.
 *
 * How the spec's mapping is read: `prompt` fills the parameter named `prompt`; `inputs.images/videos/
 * audios[]` fill the model's `format: uri` parameters whose name says image/video/audio, in catalog order;
 * the hints `duration`, `resolution` and `aspect_ratio` fill parameters of those names; `options` use exact
 * parameter names and override all of that. Hints are coerced by the service, so only hints with an `enum`
 * in the catalog are checked (resolution and aspect ratio must be one of its values).
 */
import { inputSlots } from '../constants/video-constants.js';
import type { CatalogModel, CatalogParameter, CatalogVideoRequest } from '../contracts/video.js';

export interface CatalogIssue {
  path: string;
  message: string;
}

const INPUT_KINDS = [
  ['images', 'image'],
  ['videos', 'video'],
  ['audios', 'audio'],
] as const;

/** The model of the catalog with this `hub:` id or bare id. */
export function findCatalogModel(models: readonly CatalogModel[], id: string): CatalogModel | undefined {
  const normalized = id.startsWith('hub:') ? id : `hub:${id}`;
  return models.find((model) => model.id === normalized || model.id === id);
}

export function catalogRequestIssues(model: CatalogModel, request: CatalogVideoRequest): CatalogIssue[] {
  const issues: CatalogIssue[] = [];
  const parameters = new Map(model.parameters.map((parameter) => [parameter.name, parameter]));
  const filled = new Set<string>();

  if (request.prompt !== undefined && parameters.has('prompt')) filled.add('prompt');
  for (const [field, kind] of INPUT_KINDS) {
    const items = request.inputs?.[field] ?? [];
    const slots = inputSlots(model, kind);
    if (items.length > slots.length) {
      issues.push({
        path: `inputs.${field}`,
        message:
          slots.length === 0
            ? `${model.id} takes no ${kind} input`
            : `${model.id} takes at most ${slots.length} ${kind}${slots.length > 1 ? 's' : ''} (${slots.map((slot) => slot.name).join(', ')})`,
      });
    }
    for (const slot of slots.slice(0, items.length)) filled.add(slot.name);
  }
  const hints: [string, unknown][] = [
    ['duration', request.duration],
    ['resolution', request.resolution],
    ['aspect_ratio', request.aspect_ratio],
  ];
  for (const [name, value] of hints) {
    if (value === undefined) continue;
    // The spec's duration is "integer or string": a number of seconds either way. Anything else ("NaN",
    // "five") would be coerced or defaulted by the model and still start a paid job.
    if (name === 'duration' && !isWholeSeconds(value)) {
      issues.push({ path: name, message: `must be a whole number of seconds, not ${JSON.stringify(value)}` });
      continue;
    }
    const parameter = parameters.get(name);
    if (!parameter) continue;
    filled.add(name);
    if (name !== 'duration' && parameter.enum && !parameter.enum.includes(value as string)) {
      issues.push({ path: name, message: `${model.id} accepts ${parameter.enum.join(', ')}` });
    }
    if (name === 'duration' && (parameter.type === 'integer' || parameter.type === 'number')) {
      const problem = valueProblem(parameter, value);
      if (problem) issues.push({ path: name, message: `${model.id}: duration ${problem}` });
    }
  }
  if (request.seed !== undefined && parameters.has('seed')) filled.add('seed');
  for (const [name, value] of Object.entries(request.options ?? {})) {
    const parameter = parameters.get(name);
    if (!parameter) {
      issues.push({
        path: `options.${name}`,
        message: `unknown option for ${model.id}; its parameters are ${model.parameters.map((item) => item.name).join(', ')}`,
      });
      continue;
    }
    const problem = valueProblem(parameter, value);
    if (problem) issues.push({ path: `options.${name}`, message: problem });
    filled.add(name);
  }
  const required = new Set([
    ...model.required,
    ...model.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  ]);
  for (const name of required) {
    if (filled.has(name)) continue;
    const parameter = parameters.get(name);
    const how =
      name === 'prompt'
        ? 'give a prompt'
        : parameter?.format === 'uri'
          ? `give ${describeInput(name)}`
          : `set options.${name}`;
    issues.push({ path: name, message: `required by ${model.id}: ${how}` });
  }
  return issues;
}

function describeInput(name: string): string {
  const kind = INPUT_KINDS.find(([, word]) => name.toLowerCase().includes(word));
  return kind ? `an ${kind[1]} (inputs.${kind[0]}) or options.${name}` : `options.${name}`;
}

/** Type, enum and range of an option value, with the coercions the service applies to strings. */
function isWholeSeconds(value: unknown): boolean {
  const seconds = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0;
}

function valueProblem(parameter: CatalogParameter, value: unknown): string | undefined {
  let coerced = value;
  switch (parameter.type) {
    case 'integer':
    case 'number': {
      coerced = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof coerced !== 'number' || !Number.isFinite(coerced)) return `must be a ${parameter.type}`;
      if (parameter.type === 'integer' && !Number.isInteger(coerced)) return 'must be an integer';
      if (parameter.minimum !== undefined && coerced < parameter.minimum)
        return `at least ${parameter.minimum}`;
      if (parameter.maximum !== undefined && coerced > parameter.maximum)
        return `at most ${parameter.maximum}`;
      break;
    }
    case 'boolean':
      if (typeof value === 'string' && (value === 'true' || value === 'false')) coerced = value === 'true';
      if (typeof coerced !== 'boolean') return 'must be true or false';
      break;
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      break;
  }
  if (parameter.enum && !parameter.enum.includes(coerced as string | number | boolean)) {
    return `must be one of ${parameter.enum.join(', ')}`;
  }
  return undefined;
}
