/**
 * The one table of the platform's services: per service its name in the job ledger, the path prefixes of
 * its requests, its label in metrics and how often one of its jobs may be read. Platform facts only: which
 * MCP tool presents a service's jobs is the servers' business (mcp-common's `jobServicesOf`). What used to repeat these facts reads them here: the ledger names and API
 * paths below, `platformServiceOf`, the job resources' intervals. It loads no schema and no client, so an
 * MCP server listing its tools or jobs (`@polymodal/core/constants`) pays for neither.
 */
export const MEETING_API_PATH = '/api/conference-summary/v1';
export const TTS_API_PATH = '/api/tts/v1';
export const FLASHCARDS_API_PATH = '/api/video-flashcards/v1';
export const CATALOG_VIDEO_API_PATH = '/api/modelhub/v1';
export const IMAGE_TO_VIDEO_API_PATH = '/api/imgvid/v1';
export const LLM_API_PATH = '/api/llm/v1';
export const THAI_ASR_API_PATH = '/api/thai-asr';
export const READING_SCORE_API_PATH = '/api/reading-score';
export const LEGACY_READING_SCORE_API_PATH = '/api/low-latency-asr/reading-score';

export interface PlatformService {
  /**
   * The service's name in the job ledger (and `list_jobs`). Several names can share one platform service:
   * a speech synthesis of a long text is a job of its own, made of `speech-synthesis` tasks.
   */
  name: string;
  /** Its requests' label in metrics (default: its name): one per platform service, never a path's ids. */
  metricsLabel?: string;
  /** Path prefixes of its requests; none for a job made here out of another service's requests. */
  apiPaths: readonly string[];
  /** Least time between two status reads of one job: the spec's (meeting: 5 s), or ours where it is silent. */
  pollIntervalMs?: number;
}

export const SERVICES = [
  {
    name: 'meeting',
    apiPaths: [MEETING_API_PATH],
    pollIntervalMs: 5_000,
  },
  {
    name: 'catalog-video',
    apiPaths: [CATALOG_VIDEO_API_PATH],
    pollIntervalMs: 3_000,
  },
  {
    name: 'image-to-video',
    apiPaths: [IMAGE_TO_VIDEO_API_PATH],
    pollIntervalMs: 3_000,
  },
  {
    name: 'flashcards',
    apiPaths: [FLASHCARDS_API_PATH],
    pollIntervalMs: 3_000,
  },
  // A text of any length: one job whose entry names its parts (`speech-synthesis` entries) beneath it, so
  // that it is resumed, listed and followed as one job in any process. Run by the server, not polled.
  { name: 'speech-text', metricsLabel: 'speech', apiPaths: [] },
  // One platform speech task: a part of at most 200 characters. Read at least 1 s apart, then slower.
  { name: 'speech-synthesis', metricsLabel: 'speech', apiPaths: [TTS_API_PATH], pollIntervalMs: 1_000 },
  { name: 'custom-voice', metricsLabel: 'speech', apiPaths: [] },
  {
    name: 'reading-score',
    apiPaths: [READING_SCORE_API_PATH, LEGACY_READING_SCORE_API_PATH],
    pollIntervalMs: 2_000,
  },
  { name: 'llm', apiPaths: [LLM_API_PATH] },
  { name: 'thai-asr', apiPaths: [THAI_ASR_API_PATH] },
] as const satisfies readonly PlatformService[];

type Service = (typeof SERVICES)[number];
export type ServiceName = Service['name'];

/** The row of a service by its name (typed to the row for a literal name), or undefined. */
export function serviceOf<N extends ServiceName>(name: N): Extract<Service, { name: N }>;
export function serviceOf(name: string): PlatformService | undefined;
export function serviceOf(name: string): PlatformService | undefined {
  return SERVICES.find((service) => service.name === name);
}

// The ledger names by themselves, checked against the table by the compiler; literal types, so that a
// server can type a union of them (`typeof CATALOG_VIDEO_SERVICE | typeof IMAGE_TO_VIDEO_SERVICE`).
export const MEETING_SERVICE = 'meeting' satisfies ServiceName;
export const CATALOG_VIDEO_SERVICE = 'catalog-video' satisfies ServiceName;
export const IMAGE_TO_VIDEO_SERVICE = 'image-to-video' satisfies ServiceName;
export const FLASHCARDS_SERVICE = 'flashcards' satisfies ServiceName;
export const SPEECH_TEXT_SERVICE = 'speech-text' satisfies ServiceName;
export const SPEECH_SYNTHESIS_SERVICE = 'speech-synthesis' satisfies ServiceName;
export const CUSTOM_VOICE_SERVICE = 'custom-voice' satisfies ServiceName;
export const READING_SCORE_SERVICE = 'reading-score' satisfies ServiceName;
