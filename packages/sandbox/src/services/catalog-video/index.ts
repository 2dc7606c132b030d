export {
  CATALOG_MODELS,
  type CatalogModel,
  type CatalogParameter,
  findCatalogModel,
} from './catalog-models.js';
export {
  CATALOG_PROVIDER,
  CATALOG_VIDEO_API_PATH,
  CATALOG_VIDEO_COUNTER,
  createCatalogVideoService,
} from './catalog-video-service.js';
