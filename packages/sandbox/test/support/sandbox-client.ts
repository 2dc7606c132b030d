/** Small HTTP helpers for the integration tests: real requests to a sandbox on loopback. */
import { MEETING_API_PATH } from '@polymodal/core/constants';
import { createMeetingRecording, type MeetingRecordingOptions, type Sandbox } from '../../src/index.js';

/** A short meeting (about 12 s) that still has a decision, an action item and a question. */
export const SHORT_SCRIPT = [
  { speaker: 'Ana', text: "Let's start with the release plan." },
  { speaker: 'Ben', text: 'We decided to release on Monday.' },
  { speaker: 'Ana', text: 'I will write the release notes by Friday.' },
  { speaker: 'Ben', text: 'Who tells the support team?' },
];

export interface CallOptions {
  key?: string | undefined;
  /** How the key is sent. */
  scheme?: 'x-api-key' | 'bearer';
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface Segment {
  id: string;
  start: number;
  end: number;
  speakerId: string;
  text: string;
}

export interface SummaryItemView {
  text: string;
  segmentIds: string[];
  ownerSpeakerId?: string;
  dueDate?: string | null;
}

/** The job object as the sandbox returns it. */
export interface JobView {
  id: string;
  status: string;
  progress: number;
  credits: number;
  creditsCharged: boolean;
  title: string;
  targetLanguage: string;
  transcript: Segment[] | null;
  translatedTranscript: Segment[] | null;
  speakerNames: Record<string, string> | null;
  summary: {
    overview: string;
    topics: SummaryItemView[];
    decisions: SummaryItemView[];
    actionItems: SummaryItemView[];
    openQuestions: SummaryItemView[];
  } | null;
  warning: string | null;
  errorMessage: string | null;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: assertions read JSON bodies of every route's shape
  body: any;
}

export function createClient(sandbox: Sandbox) {
  const base = `${sandbox.url}${MEETING_API_PATH}`;

  async function call(method: string, route: string, options: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...options.headers };
    const key = 'key' in options ? options.key : sandbox.apiKey;
    if (key !== undefined) {
      if (options.scheme === 'bearer') headers.authorization = `Bearer ${key}`;
      else headers['x-api-key'] = key;
    }
    let body: string | undefined = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const url = route.startsWith('/__sandbox/') ? `${sandbox.url}${route}` : `${base}${route}`;
    const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text for the assertion message.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async function uploadBytes(
    bytes: Buffer,
    filename = 'meeting.wav',
    key = sandbox.apiKey,
  ): Promise<CallResult> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'audio/wav' }), filename);
    const response = await fetch(`${base}/uploads`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  async function upload(
    recording: Partial<MeetingRecordingOptions> = {},
    key = sandbox.apiKey,
  ): Promise<string> {
    const result = await uploadBytes(
      createMeetingRecording({ script: SHORT_SCRIPT, ...recording }),
      'sync.wav',
      key,
    );
    if (result.status !== 201)
      throw new Error(`upload failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.uploadReceipt as string;
  }

  async function createJob(
    receipt: string,
    fields: Record<string, unknown> = {},
    key = sandbox.apiKey,
  ): Promise<CallResult> {
    return call('POST', '/jobs', {
      key,
      json: { uploadReceipt: receipt, sourceLanguage: 'en', targetLanguage: 'th', ...fields },
    });
  }

  /** Uploads a recording and creates a job from it; returns the job id. */
  async function submit(
    recording: Partial<MeetingRecordingOptions> = {},
    fields: Record<string, unknown> = {},
    key = sandbox.apiKey,
  ) {
    const created = await createJob(await upload(recording, key), fields, key);
    if (created.status !== 201)
      throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.id as string;
  }

  async function job(id: string, key = sandbox.apiKey): Promise<JobView> {
    const result = await call('GET', `/jobs/${id}`, { key });
    if (result.status !== 200) throw new Error(`get failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.job as JobView;
  }

  const action = (id: string, json: Record<string, unknown>, key = sandbox.apiKey) =>
    call('POST', `/jobs/${id}`, { key, json });

  /** Finishes whatever is running (short recordings) by moving the sandbox clock ten minutes ahead. */
  const finish = () => sandbox.control.advance(10 * 60 * 1000);

  return { base, call, uploadBytes, upload, createJob, submit, job, action, finish };
}
