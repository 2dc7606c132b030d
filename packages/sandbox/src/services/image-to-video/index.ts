export {
  createImageToVideoService,
  IMAGE_TO_VIDEO_API_PATH,
  IMAGE_TO_VIDEO_COUNTER,
} from './image-to-video-service.js';
export {
  ASPECT_RATIOS,
  IMAGE_TO_VIDEO_DEFAULT_MODEL,
  IMAGE_TO_VIDEO_MODELS,
  RESOLUTIONS,
} from './video-request.js';
