/**
 * Which MCP server answers the jobs of which platform service, and which of its tools continues a wait on
 * one. Core's service table holds the platform's facts only (ledger names, paths, read intervals); the
 * tools that present those jobs belong here, beside the servers that offer them.
 */
import {
  CATALOG_VIDEO_SERVICE,
  FLASHCARDS_SERVICE,
  IMAGE_TO_VIDEO_SERVICE,
  MEETING_SERVICE,
  READING_SCORE_SERVICE,
  type ServiceName,
  SPEECH_TEXT_SERVICE,
} from '@polymodal/core/constants';

/** The MCP servers that answer long jobs (the combined server's toolsets bear the same names). */
export type McpServerName = 'meeting' | 'media' | 'speech';

export interface JobService {
  /** The service's name in the job ledger. */
  service: ServiceName;
  /** The tool that continues the wait on one of its jobs. */
  waitTool: string;
  /** The tool that cancels one of its jobs on the platform, where the service can. */
  cancelTool?: string;
}

/** Per server, the services whose jobs it starts, in the order its `list_jobs` names them. */
const JOB_SERVICES: Record<McpServerName, readonly JobService[]> = {
  meeting: [{ service: MEETING_SERVICE, waitTool: 'get_meeting', cancelTool: 'cancel_meeting' }],
  media: [
    { service: CATALOG_VIDEO_SERVICE, waitTool: 'get_video_job' },
    { service: IMAGE_TO_VIDEO_SERVICE, waitTool: 'get_video_job' },
    { service: FLASHCARDS_SERVICE, waitTool: 'get_flashcards' },
    // A text of any length: one job whose parts (`speech-synthesis` tasks) are listed beneath it.
    { service: SPEECH_TEXT_SERVICE, waitTool: 'get_speech' },
  ],
  speech: [{ service: READING_SCORE_SERVICE, waitTool: 'get_reading_score' }],
};

/** The job services of every server (a combined server's tools follow all of them). */
export const ALL_JOB_SERVICES: readonly JobService[] = Object.values(JOB_SERVICES).flat();

/** The job services of `server`, each with the tool that continues its jobs. */
export function jobServicesOf(server: McpServerName): readonly JobService[] {
  return JOB_SERVICES[server];
}
