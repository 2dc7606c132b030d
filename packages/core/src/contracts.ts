/** `@polymodal/core/contracts`: zod schemas of the platform's answers and main requests, to validate with. */
export { FlashcardJob } from './contracts/flashcards.js';
export { ChatCompletionRequest, ChatCompletionResponse } from './contracts/llm.js';
export { CreateMeetingJobRequest, MeetingJob } from './contracts/meeting.js';
export { isNoSpeechResult, ReadingScoreResult, ReadingScoreTask } from './contracts/reading-score.js';
export { SpeechRequest, SpeechTask } from './contracts/speech-synthesis.js';
export { ThaiAsrEvent } from './contracts/thai-asr.js';
export { VideoJob } from './contracts/video.js';
