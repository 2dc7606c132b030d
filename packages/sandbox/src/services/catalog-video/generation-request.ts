/**
 * Turns a catalog generation request into the model's parameters: `prompt` and the hints (`duration`,
 * `resolution`, `aspect_ratio`/`aspectRatio`) are mapped onto the model's parameters and coerced,
 * `inputs.images/videos/audios` fill its URI parameters in catalog order, `options` (exact parameter
 * names, validated and coerced) override the mapping, and the seed follows the -1/random and clamp rules.
 */
import { HttpError } from '../../framework/http-error.js';
import { MAX_SAFE_SEED, parseVideoSeed, rejectUnknownFields } from '../../media/media-request.js';
import type { CatalogModel, CatalogParameter } from './catalog-models.js';

const FIELDS = [
  'model',
  'prompt',
  'inputs',
  'duration',
  'resolution',
  'aspect_ratio',
  'aspectRatio',
  'options',
  'seed',
];
const INPUT_KINDS = { images: 'image', videos: 'video', audios: 'audio' } as const;
export type InputKind = (typeof INPUT_KINDS)[keyof typeof INPUT_KINDS];

export interface GenerationParameters {
  values: Record<string, string | number | boolean>;
  /** URI parameters and the kind of media each must hold. */
  uris: { name: string; kind: InputKind; url: string }[];
  seed: number | undefined;
}

function kindOfUriParameter(parameter: CatalogParameter): InputKind | undefined {
  if (parameter.format !== 'uri') return undefined;
  if (parameter.name.includes('image')) return 'image';
  if (parameter.name.includes('video')) return 'video';
  if (parameter.name.includes('audio')) return 'audio';
  return undefined;
}

function numberFrom(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*s?\s*$/i.test(value)) return Number.parseFloat(value);
  return undefined;
}

/** Coerces an option value to the parameter's type or answers 400 naming the parameter and the rule. */
export function coerceOption(
  parameter: CatalogParameter,
  value: unknown,
  modelId: string,
): string | number | boolean {
  const where = `options.${parameter.name} (${modelId})`;
  let coerced: string | number | boolean;
  switch (parameter.type) {
    case 'integer': {
      const number = numberFrom(value);
      if (number === undefined || !Number.isInteger(number))
        throw new HttpError(400, `${where} must be an integer`);
      coerced = number;
      break;
    }
    case 'number': {
      const number = numberFrom(value);
      if (number === undefined) throw new HttpError(400, `${where} must be a number`);
      coerced = number;
      break;
    }
    case 'boolean':
      if (typeof value === 'boolean') coerced = value;
      else if (value === 'true' || value === 'false') coerced = value === 'true';
      else throw new HttpError(400, `${where} must be a boolean`);
      break;
    default:
      if (typeof value !== 'string') throw new HttpError(400, `${where} must be a string`);
      coerced = value;
  }
  if (parameter.enum && !parameter.enum.includes(coerced as string | number)) {
    throw new HttpError(400, `${where} must be one of ${parameter.enum.join(', ')}`);
  }
  if (typeof coerced === 'number' && parameter.name !== 'seed') {
    if (parameter.minimum !== undefined && coerced < parameter.minimum) {
      throw new HttpError(400, `${where} must be at least ${parameter.minimum}`);
    }
    if (parameter.maximum !== undefined && coerced > parameter.maximum) {
      throw new HttpError(400, `${where} must be at most ${parameter.maximum}`);
    }
  }
  return coerced;
}

/** A duration hint: numeric strings accepted, snapped to the allowed values or clamped to the range. */
function coerceDurationHint(parameter: CatalogParameter, value: unknown): number | undefined {
  const number = numberFrom(value);
  if (number === undefined) return undefined; // not a number: the model default applies
  let result = Math.round(number);
  if (parameter.enum) {
    const allowed = parameter.enum.filter((entry): entry is number => typeof entry === 'number');
    result = allowed.reduce(
      (best, entry) => (Math.abs(entry - number) < Math.abs(best - number) ? entry : best),
      allowed[0]!,
    );
  }
  if (parameter.minimum !== undefined) result = Math.max(parameter.minimum, result);
  if (parameter.maximum !== undefined) result = Math.min(parameter.maximum, result);
  return result;
}

function enumHint(parameter: CatalogParameter, value: unknown, field: string, modelId: string): string {
  if (typeof value !== 'string' || (parameter.enum && !parameter.enum.includes(value))) {
    throw new HttpError(400, `${field} must be one of ${parameter.enum?.join(', ')} for ${modelId}`);
  }
  return value;
}

export function buildGenerationParameters(
  model: CatalogModel,
  body: Record<string, unknown>,
): GenerationParameters {
  rejectUnknownFields(body, FIELDS);
  const parameters = new Map(model.parameters.map((parameter) => [parameter.name, parameter]));
  const values: Record<string, string | number | boolean> = {};
  for (const parameter of model.parameters) {
    if (parameter.default !== undefined) values[parameter.name] = parameter.default;
  }

  if (body.prompt !== undefined) {
    if (typeof body.prompt !== 'string') throw new HttpError(400, 'prompt must be a string');
    // Models without a prompt parameter ignore it (a hint, like the other common fields).
    if (parameters.has('prompt') && body.prompt.trim() !== '') values.prompt = body.prompt;
  }
  const duration = parameters.get('duration');
  if (body.duration !== undefined && duration) {
    const hinted = coerceDurationHint(duration, body.duration);
    if (hinted !== undefined) values.duration = hinted;
  }
  const resolution = parameters.get('resolution');
  if (body.resolution !== undefined && resolution) {
    values.resolution = enumHint(resolution, body.resolution, 'resolution', model.id);
  }
  if (
    body.aspect_ratio !== undefined &&
    body.aspectRatio !== undefined &&
    body.aspect_ratio !== body.aspectRatio
  ) {
    throw new HttpError(400, 'aspect_ratio and its alias aspectRatio differ; send one of them');
  }
  const aspectHint = body.aspect_ratio ?? body.aspectRatio;
  const aspect = parameters.get('aspect_ratio');
  if (aspectHint !== undefined && aspect)
    values.aspect_ratio = enumHint(aspect, aspectHint, 'aspect_ratio', model.id);

  if (body.inputs !== undefined) {
    if (typeof body.inputs !== 'object' || body.inputs === null || Array.isArray(body.inputs)) {
      throw new HttpError(400, 'inputs must be an object with images, videos and/or audios arrays');
    }
    const inputs = body.inputs as Record<string, unknown>;
    rejectUnknownFields(inputs, Object.keys(INPUT_KINDS));
    for (const [group, kind] of Object.entries(INPUT_KINDS)) {
      const items = inputs[group];
      if (items === undefined) continue;
      if (!Array.isArray(items)) throw new HttpError(400, `inputs.${group} must be an array of {url}`);
      const slots = model.parameters.filter((parameter) => kindOfUriParameter(parameter) === kind);
      if (items.length > slots.length) {
        throw new HttpError(
          400,
          `inputs.${group}: ${model.id} takes at most ${slots.length} ${kind} input${slots.length === 1 ? '' : 's'}`,
        );
      }
      items.forEach((item, index) => {
        const url = (item as { url?: unknown } | null)?.url;
        if (typeof url !== 'string' || url.trim() === '') {
          throw new HttpError(400, `inputs.${group}[${index}].url must be a non-empty string`);
        }
        values[slots[index]!.name] = url;
      });
    }
  }

  let seed = parseVideoSeed(body.seed);
  if (body.options !== undefined) {
    if (typeof body.options !== 'object' || body.options === null || Array.isArray(body.options)) {
      throw new HttpError(400, 'options must be an object of the model’s parameter names');
    }
    for (const [name, value] of Object.entries(body.options as Record<string, unknown>)) {
      const parameter = parameters.get(name);
      if (!parameter) {
        throw new HttpError(
          400,
          `unknown option ${name} for ${model.id}; its parameters: ${[...parameters.keys()].join(', ')}`,
        );
      }
      if (value === null || value === undefined) continue;
      const coerced = coerceOption(parameter, value, model.id);
      if (name === 'seed') {
        seed = (coerced as number) < 0 ? undefined : Math.min(coerced as number, MAX_SAFE_SEED);
        continue;
      }
      values[name] = coerced;
    }
  }
  if (parameters.has('seed') && seed !== undefined) values.seed = seed;

  const missing = model.required.filter((name) => values[name] === undefined || values[name] === '');
  if (missing.length > 0) {
    throw new HttpError(
      400,
      `missing required field${missing.length > 1 ? 's' : ''} for ${model.id}: ${missing.join(', ')}`,
    );
  }
  const uris = model.parameters.flatMap((parameter) => {
    const kind = kindOfUriParameter(parameter);
    const value = values[parameter.name];
    return kind && typeof value === 'string' ? [{ name: parameter.name, kind, url: value }] : [];
  });
  return { values, uris, seed };
}
