export {
  checkAudioLength,
  checkDailyAllowance,
  MAX_TRANSCRIBE_AUDIO_SECONDS,
  remainingDailySeconds,
  UNTIMED_BYTES_PER_SECOND,
} from './check-audio-length.js';
export * from './create-thai-asr-client.js';
