/**
 * The speech synthesis service's constants (languages, models, limits), apart from its schemas: code that
 * needs only these does not build the schemas.
 */
export const TTS_LANGUAGES = ['en', 'zh', 'vi', 'th', 'ms', 'lo', 'ja', 'ko'] as const;
export type TtsLanguage = (typeof TTS_LANGUAGES)[number];
export const TTS_MODELS = ['model_a', 'model_b', 'model_c', 'model_d'] as const;
export type TtsModel = (typeof TTS_MODELS)[number];
/** The legacy model value; the service routes it to model_d. */
export const TTS_LEGACY_MODEL = 'legacy_model';
/** Languages that must use model_d. */
export const MODEL_D_LANGUAGES: readonly string[] = ['th', 'ms', 'lo'];
export const MAX_TTS_TEXT_CHARACTERS = 200;
export const MAX_TTS_SEED = 2_147_483_647;
export const TTS_MODEL_A_EXPRESSIONS = ['natural', 'storytelling'] as const;
