/**
 * The sandbox's video model catalog: models of different shapes (text-to-video with a prompt,
 * image-to-video with an image URI, audio-driven video, video-to-video), each with its required fields and
 * a parameter schema. The catalog is the source of truth for `options`.
 */

export type ParameterType = 'string' | 'integer' | 'number' | 'boolean';

export interface CatalogParameter {
  name: string;
  type: ParameterType;
  required: boolean;
  format?: 'uri';
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
  description?: string;
}

export interface CatalogModel {
  id: string;
  title: string;
  category: string;
  required: readonly string[];
  parameters: readonly CatalogParameter[];
  /** Generation seconds per second of video at speed 1 (sandbox timing, not part of the catalog). */
  secondsPerVideoSecond: number;
}

const seed: CatalogParameter = {
  name: 'seed',
  type: 'integer',
  required: false,
  description: '-1 for random',
};

export const CATALOG_MODELS: readonly CatalogModel[] = [
  {
    id: 'hub:text-to-video-lite',
    title: 'Text to Video Lite',
    category: 'text-to-video',
    required: ['prompt'],
    parameters: [
      { name: 'prompt', type: 'string', required: true },
      { name: 'negative_prompt', type: 'string', required: false },
      { name: 'duration', type: 'integer', required: false, enum: [5, 10], default: 5 },
      { name: 'resolution', type: 'string', required: false, enum: ['480p', '720p'], default: '720p' },
      {
        name: 'aspect_ratio',
        type: 'string',
        required: false,
        enum: ['16:9', '9:16', '1:1'],
        default: '16:9',
      },
      { name: 'enhance_prompt', type: 'boolean', required: false, default: true },
      seed,
    ],
    secondsPerVideoSecond: 1,
  },
  {
    id: 'hub:image-animate-pro',
    title: 'Image Animate Pro',
    category: 'image-to-video',
    required: ['prompt', 'image_url'],
    parameters: [
      { name: 'prompt', type: 'string', required: true },
      { name: 'image_url', type: 'string', required: true, format: 'uri' },
      { name: 'end_image_url', type: 'string', required: false, format: 'uri' },
      { name: 'duration', type: 'integer', required: false, minimum: 2, maximum: 10, default: 5 },
      { name: 'resolution', type: 'string', required: false, enum: ['720p', '1080p'], default: '1080p' },
      { name: 'motion_strength', type: 'number', required: false, minimum: 0, maximum: 1, default: 0.5 },
      seed,
    ],
    secondsPerVideoSecond: 2,
  },
  {
    id: 'hub:talking-avatar',
    title: 'Talking Avatar',
    category: 'audio-to-video',
    required: ['image_url', 'audio_url'],
    parameters: [
      { name: 'image_url', type: 'string', required: true, format: 'uri' },
      { name: 'audio_url', type: 'string', required: true, format: 'uri' },
      { name: 'prompt', type: 'string', required: false },
      { name: 'resolution', type: 'string', required: false, enum: ['480p', '720p'], default: '480p' },
    ],
    secondsPerVideoSecond: 1.5,
  },
  {
    id: 'hub:video-restyle',
    title: 'Video Restyle',
    category: 'video-to-video',
    required: ['prompt', 'video_url'],
    parameters: [
      { name: 'prompt', type: 'string', required: true },
      { name: 'video_url', type: 'string', required: true, format: 'uri' },
      { name: 'strength', type: 'number', required: false, minimum: 0, maximum: 1, default: 0.6 },
      seed,
    ],
    secondsPerVideoSecond: 1,
  },
];

/** Finds a model by its `hub:` id or its bare id. */
export function findCatalogModel(id: string): CatalogModel | undefined {
  const normalized = id.startsWith('hub:') ? id : `hub:${id}`;
  return CATALOG_MODELS.find((model) => model.id === normalized);
}

/** The model entry as the catalog lists it (without sandbox timing). */
export function catalogEntry(model: CatalogModel) {
  return {
    id: model.id,
    title: model.title,
    category: model.category,
    required: [...model.required],
    parameters: model.parameters.map((parameter) => ({ ...parameter })),
  };
}
