/**
 * Wire contracts of the two video services, from spec/media-generation.md: the catalog video service
 * (`/api/modelhub/v1`) and image-to-video (`/api/imgvid/v1`). Responses are lenient (unknown fields pass);
 * requests are checked before they are sent.
 */
import { z } from 'zod';

import {
  IMAGE_TO_VIDEO_ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODELS,
  IMAGE_TO_VIDEO_RESOLUTIONS,
} from '../constants/video-constants.js';

export const CatalogParameter = z.looseObject({
  name: z.string(),
  type: z.string(),
  required: z.boolean().optional(),
  format: z.string().optional(),
  enum: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
});
export type CatalogParameter = z.infer<typeof CatalogParameter>;

export const CatalogModel = z.looseObject({
  id: z.string(),
  title: z.string(),
  category: z.string(),
  required: z.array(z.string()),
  parameters: z.array(CatalogParameter),
});
export type CatalogModel = z.infer<typeof CatalogModel>;

export const CatalogEnvelope = z.looseObject({
  object: z.string(),
  provider: z.string(),
  base_url: z.string().optional(),
  data: z.array(CatalogModel),
});
export type CatalogEnvelope = z.infer<typeof CatalogEnvelope>;

export const MediaInput = z.object({ url: z.string().min(1) });

export const CatalogVideoRequest = z.object({
  model: z.string().min(1),
  prompt: z.string().min(1).optional(),
  inputs: z
    .object({
      images: z.array(MediaInput).optional(),
      videos: z.array(MediaInput).optional(),
      audios: z.array(MediaInput).optional(),
    })
    .optional(),
  duration: z.union([z.number().int(), z.string()]).optional(),
  resolution: z.string().optional(),
  aspect_ratio: z.string().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  seed: z.number().int().optional(),
});
export type CatalogVideoRequest = z.infer<typeof CatalogVideoRequest>;

export const VideoJob = z.looseObject({
  request_id: z.string(),
  status: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  video: z.looseObject({ url: z.string() }).nullable().optional(),
  progress: z.record(z.string(), z.unknown()).nullable().optional(),
  error: z.unknown().optional(),
});
export type VideoJob = z.infer<typeof VideoJob>;

export const ImageToVideoRequest = z.object({
  model: z.enum(IMAGE_TO_VIDEO_MODELS).optional(),
  prompt: z.string().min(1),
  image: z.object({ url: z.string().min(1) }),
  duration: z.number().int().min(2).max(10).optional(),
  aspect_ratio: z.enum(IMAGE_TO_VIDEO_ASPECT_RATIOS).optional(),
  resolution: z.enum(IMAGE_TO_VIDEO_RESOLUTIONS).optional(),
  seed: z.number().int().optional(),
});
export type ImageToVideoRequest = z.infer<typeof ImageToVideoRequest>;
