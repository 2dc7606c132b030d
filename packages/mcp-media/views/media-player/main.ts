/**
 * The media player view (MCP Apps): shows the saved file of a speech or video tool (synthesize_speech,
 * get_speech, generate_video, image_to_video, get_video_job) as an `<audio>` or a `<video>` element, picked
 * by the output link's mime type, with the file's name and size and the job's facts. It gets the tool's
 * result from the host (`ontoolresult`), reads the saved file through the host (`resources/read` of its
 * `polymodal://outputs/` link) and plays it from a `data:` URL: the view loads nothing from any origin. While
 * the job runs it shows the job's progress, and "Check again" calls the tool that continues it (get_speech or
 * get_video_job) through the host.
 */
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/client';
import {
  checkAgain,
  connectView,
  createViewApp,
  type JobFacts,
  messageOf,
  outputLinkOf,
  showJobState,
  textOf,
} from '@polymodal/mcp-common/views';

/**
 * The largest file the view reads through the host: the server's `MAX_OUTPUT_RESOURCE_BYTES` (mcp-common's
 * output-resources.ts). The whole file travels as one base64 `resources/read` answer (a third bigger), and
 * an MCP SDK client over stdio drops its connection on a message over 10 MiB (its read buffer's cap). A
 * larger file is not asked for: the view names it and where it was saved instead.
 */
const MAX_READ_BYTES = 7 * 1024 * 1024;

/** The tool that continues each tool's job (what "Check again" calls). */
const CONTINUED_BY: Readonly<Record<string, string>> = {
  synthesize_speech: 'get_speech',
  get_speech: 'get_speech',
  generate_video: 'get_video_job',
  image_to_video: 'get_video_job',
  get_video_job: 'get_video_job',
};

const elements = {
  title: document.getElementById('file-name') as HTMLHeadingElement,
  status: document.getElementById('status') as HTMLParagraphElement,
  progress: document.getElementById('progress') as HTMLProgressElement,
  audio: document.getElementById('audio') as HTMLAudioElement,
  video: document.getElementById('video') as HTMLVideoElement,
  facts: document.getElementById('facts') as HTMLDListElement,
  refresh: document.getElementById('refresh') as HTMLButtonElement,
  transcript: document.getElementById('transcript') as HTMLQuoteElement,
};

/**
 * The structured result of the speech and video tools: their output schema, the long-job one (`JobFacts`),
 * and the further properties it allows that the view shows.
 */
interface MediaFacts extends JobFacts {
  service?: string;
  model?: string;
  sizeBytes?: number;
  durationSeconds?: number;
  partsTotal?: number;
  partsDone?: number;
}

type MediaKind = 'audio' | 'video';

const app = createViewApp('Polymodal media player');
let jobId: string | undefined;
let facts: MediaFacts = {};
let link: ResourceLink | undefined;
/** What the browser decoded of the video (its duration and frame size), which no result field says. */
let decoded: { seconds: number; width: number; height: number } | undefined;
let shown: string | undefined;

// Shown under the player: the text spoken (synthesize_speech) or the prompt of the video (generate_video,
// image_to_video). The get_ tools have neither.
app.addEventListener('toolinput', ({ arguments: input }) => {
  const [label, text] =
    typeof input?.text === 'string'
      ? ['Transcript', input.text]
      : typeof input?.prompt === 'string'
        ? ['Prompt', input.prompt]
        : [];
  if (!label || !text) return;
  elements.transcript.textContent = text;
  elements.transcript.dataset.label = label;
  elements.transcript.hidden = false;
});
app.addEventListener('toolresult', (result) => void show(result));
elements.refresh.addEventListener('click', () => void refresh());
elements.video.addEventListener('loadedmetadata', () => {
  const { duration, videoWidth, videoHeight } = elements.video;
  decoded = { seconds: duration, width: videoWidth, height: videoHeight };
  setFacts();
});
for (const media of [elements.audio, elements.video]) {
  media.addEventListener('error', () => {
    elements.status.textContent = `The ${media.tagName.toLowerCase()} could not be played: ${media.error?.message || 'the browser cannot decode it'}.`;
  });
}

/** The saved audio or video (a link without a mime type may be either). */
function isMedia(output: ResourceLink): boolean {
  return !output.mimeType || /^(audio|video)\//.test(output.mimeType);
}

function kindOf(output: ResourceLink): MediaKind {
  return output.mimeType?.startsWith('video/') ? 'video' : 'audio';
}

async function show(result: CallToolResult): Promise<void> {
  facts = (result.structuredContent ?? {}) as MediaFacts;
  jobId = facts.jobId ?? jobId;
  link = outputLinkOf(result, isMedia);
  setFacts();
  if (showJobState(elements, result, facts, { id: jobId, runningTitle: 'Still working…' })) return;
  if (!link) {
    elements.title.textContent =
      facts.outcome === 'cancelled'
        ? 'The job was cancelled'
        : facts.outcome === 'failed'
          ? 'The job failed'
          : 'Nothing to play';
    elements.status.textContent = facts.error ?? textOf(result);
    return;
  }
  elements.title.textContent = link.name;
  if (shown === link.uri) return;
  const kind = kindOf(link);
  if (link.size === undefined || link.size > MAX_READ_BYTES) {
    elements.status.textContent =
      `This ${kind} is ${link.size === undefined ? 'of unknown size' : formatBytes(link.size)}: too large to play here ` +
      `(a view reads files of up to ${formatBytes(MAX_READ_BYTES)} through the host). It is saved as ${link.name}.`;
    return;
  }
  elements.status.textContent = `Loading the ${kind}…`;
  try {
    const read = await app.readServerResource({ uri: link.uri });
    const content = read.contents[0];
    if (!content || !('blob' in content)) throw new Error(`the host returned no ${kind}`);
    const mimeType = content.mimeType ?? link.mimeType ?? (kind === 'video' ? 'video/mp4' : 'audio/wav');
    const player = kind === 'video' ? elements.video : elements.audio;
    const other = kind === 'video' ? elements.audio : elements.video;
    other.hidden = true;
    other.removeAttribute('src');
    player.src = `data:${mimeType};base64,${content.blob}`;
    player.hidden = false;
    elements.status.textContent = '';
    shown = link.uri;
  } catch (error) {
    elements.status.textContent = `The ${kind} could not be loaded: ${messageOf(error)}`;
  }
}

/** The tool that continues this job: by the tool the host says ran, else by the result (videos name their service). */
function continuingTool(): string {
  const ran = app.getHostContext()?.toolInfo?.tool.name;
  return (ran && CONTINUED_BY[ran]) ?? (facts.service ? 'get_video_job' : 'get_speech');
}

async function refresh(): Promise<void> {
  if (!jobId) return;
  const name = continuingTool();
  const args: Record<string, unknown> = { jobId };
  if (name === 'get_video_job' && facts.service) args.service = facts.service;
  await checkAgain(app, elements, { name, arguments: args, show });
}

function setFacts(): void {
  const rows: [string, string][] = [];
  const size = link?.size ?? facts.sizeBytes;
  if (size !== undefined) rows.push(['Size', formatBytes(size)]);
  if (facts.model) rows.push(['Model', facts.model]);
  const seconds = facts.durationSeconds ?? decoded?.seconds;
  if (seconds !== undefined && Number.isFinite(seconds)) rows.push(['Duration', `${seconds.toFixed(1)} s`]);
  if (decoded && decoded.width > 0) rows.push(['Resolution', `${decoded.width} × ${decoded.height}`]);
  if (facts.partsTotal !== undefined) rows.push(['Parts', `${facts.partsDone ?? 0} of ${facts.partsTotal}`]);
  if (facts.outcome) rows.push(['Outcome', facts.outcome]);
  if (jobId) rows.push(['Job', jobId]);
  elements.facts.replaceChildren(
    ...rows.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      return [dt, dd];
    }),
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

connectView(app, elements.status);
