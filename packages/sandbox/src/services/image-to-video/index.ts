export {
  ASPECT_RATIOS,
  createImageToVideoService,
  IMAGE_TO_VIDEO_API_PATH,
  IMAGE_TO_VIDEO_COUNTER,
  IMAGE_TO_VIDEO_DEFAULT_MODEL,
  IMAGE_TO_VIDEO_MODELS,
  RESOLUTIONS,
} from './image-to-video-service.js';
