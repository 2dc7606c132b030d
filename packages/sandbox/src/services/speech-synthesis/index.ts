export {
  BUILT_IN_SPEAKERS,
  defaultModelFor,
  LEGACY_MODEL,
  MAX_TEXT_CHARACTERS,
  TTS_LANGUAGES,
  TTS_MODELS,
} from './speech-request.js';
export {
  CUSTOM_VOICE_COUNTER,
  createSpeechSynthesisService,
  TTS_API_PATH,
  TTS_COUNTER,
} from './speech-synthesis-service.js';
