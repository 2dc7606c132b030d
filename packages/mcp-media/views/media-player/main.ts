/**
 * The media player view (MCP Apps): shows a synthesize_speech / get_speech result as an `<audio>` element
 * with the file's name and size and the job's facts. It gets the tool's result from the host (`ontoolresult`),
 * reads the saved file through the host (`resources/read` of its `polymodal://outputs/` link) and plays it
 * from a `data:` URL: the view loads nothing from any origin. While the job runs, "Check again" calls
 * get_speech through the host.
 */
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { config } from 'zod/v4/core';

// zod compiles its object parsers with `new Function` unless told not to; a view's CSP forbids eval.
config({ jitless: true });

const OUTPUT_PREFIX = 'polymodal://outputs/';

const elements = {
  name: document.getElementById('file-name') as HTMLHeadingElement,
  status: document.getElementById('status') as HTMLParagraphElement,
  audio: document.getElementById('audio') as HTMLAudioElement,
  facts: document.getElementById('facts') as HTMLDListElement,
  refresh: document.getElementById('refresh') as HTMLButtonElement,
  transcript: document.getElementById('transcript') as HTMLQuoteElement,
};

interface SpeechFacts {
  jobId?: string;
  done?: boolean;
  outcome?: string;
  sizeBytes?: number;
  durationSeconds?: number;
  partsTotal?: number;
  partsDone?: number;
}

interface OutputLink {
  uri: string;
  name: string;
  mimeType?: string;
  size?: number;
}

const app = new App({ name: 'Polymodal media player', version: '1.0.0' }, {}, { autoResize: true });
let jobId: string | undefined;
let shown: string | undefined;

app.onhostcontextchanged = (context) => applyTheme(context);
// The text spoken is the audio's transcript (synthesize_speech's input; get_speech has none).
app.ontoolinput = ({ arguments: input }) => {
  if (typeof input?.text !== 'string') return;
  elements.transcript.textContent = input.text;
  elements.transcript.hidden = false;
};
app.ontoolresult = (result) => void show(result as CallToolResult);
elements.refresh.addEventListener('click', () => void refresh());

function applyTheme(context: ReturnType<App['getHostContext']>): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

/** The `polymodal://outputs/` link of the saved audio or video, when the result has one. */
function outputLinkOf(result: CallToolResult): OutputLink | undefined {
  for (const item of result.content ?? []) {
    if (item.type === 'resource_link' && item.uri.startsWith(OUTPUT_PREFIX)) {
      if (item.mimeType && !/^(audio|video)\//.test(item.mimeType)) continue;
      return {
        uri: item.uri,
        name: item.name,
        mimeType: item.mimeType,
        size: item.size as number | undefined,
      };
    }
  }
  return undefined;
}

function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .map((item) => (item.type === 'text' ? item.text : ''))
    .filter(Boolean)
    .join('\n');
}

async function show(result: CallToolResult): Promise<void> {
  const facts = (result.structuredContent ?? {}) as SpeechFacts;
  jobId = facts.jobId ?? jobId;
  const link = outputLinkOf(result);
  setFacts(facts, link);
  elements.refresh.hidden = !(facts.done === false && jobId);
  if (result.isError) {
    elements.name.textContent = 'The tool failed';
    elements.status.textContent = textOf(result);
    return;
  }
  if (!link) {
    elements.name.textContent = facts.done === false ? 'Still working…' : 'Nothing to play';
    elements.status.textContent = textOf(result);
    return;
  }
  elements.name.textContent = link.name;
  if (shown === link.uri) return;
  elements.status.textContent = 'Loading the audio…';
  try {
    const read = await app.readServerResource({ uri: link.uri });
    const content = read.contents[0];
    if (!content || !('blob' in content)) throw new Error('the host returned no audio');
    const mimeType = content.mimeType ?? link.mimeType ?? 'audio/wav';
    elements.audio.src = `data:${mimeType};base64,${content.blob}`;
    elements.audio.hidden = false;
    elements.status.textContent = '';
    shown = link.uri;
  } catch (error) {
    elements.status.textContent = `The audio could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function refresh(): Promise<void> {
  if (!jobId) return;
  elements.refresh.disabled = true;
  elements.status.textContent = 'Checking…';
  try {
    await show(await app.callServerTool({ name: 'get_speech', arguments: { jobId, waitSeconds: 10 } }));
  } catch (error) {
    elements.status.textContent = `Could not check the job: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    elements.refresh.disabled = false;
  }
}

function setFacts(facts: SpeechFacts, link: OutputLink | undefined): void {
  const rows: [string, string][] = [];
  const size = link?.size ?? facts.sizeBytes;
  if (size !== undefined) rows.push(['Size', formatBytes(size)]);
  if (facts.durationSeconds !== undefined) rows.push(['Duration', `${facts.durationSeconds.toFixed(1)} s`]);
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

// An IIFE has no top-level await; a failed connect leaves the view's own message on screen.
app.connect().then(
  () => applyTheme(app.getHostContext()),
  (error: unknown) => {
    elements.status.textContent = `Could not reach the host: ${error instanceof Error ? error.message : String(error)}`;
  },
);
