/**
 * The video services' constants (paths, states, image-to-video's models and options) and `inputSlots`,
 * apart from their schemas: code that needs only these does not build the schemas.
 */
export const VIDEO_JOB_STATES = ['queued', 'processing', 'done', 'failed', 'canceled'] as const;
/** States after which a video job does not change any more. */
export const VIDEO_TERMINAL_STATES: readonly string[] = ['done', 'failed', 'canceled', 'cancelled'];

export const IMAGE_TO_VIDEO_MODELS = [
  'imgvid-standard',
  'imgvid-standard-fast',
  'imgvid-standard-quality',
  'imgvid-standard-full',
  'imgvid-standard-distilled',
  'imgvid',
  'imgvid-2.3',
] as const;
export const IMAGE_TO_VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export const IMAGE_TO_VIDEO_RESOLUTIONS = ['480p', '720p'] as const;

/** The URI parameters of a catalog model that take the given input kind, in catalog order. */
export function inputSlots<P extends { name: string; format?: string | undefined }>(
  model: { parameters: readonly P[] },
  kind: 'image' | 'video' | 'audio',
): P[] {
  return model.parameters.filter(
    (parameter) => parameter.format === 'uri' && parameter.name.toLowerCase().includes(kind),
  );
}
