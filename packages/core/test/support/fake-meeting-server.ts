/**
 * A minimal stand-in for the meeting service, enough to exercise the client's flows (upload, create
 * with receipt deduplication, polling, actions). Each job walks through a scripted list of statuses,
 * one step per GET.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startServer, type TestServer } from './start-server.js';

const API = '/api/conference-summary/v1';

export interface FakeJob {
  id: string;
  receipt: string;
  script: string[];
  title: string;
  errorMessage: string | null;
  request: Record<string, unknown>;
}

export interface FakeMeetingServer {
  server: TestServer;
  url: string;
  jobs: Map<string, FakeJob>;
  uploads: { bytes: number; contentType: string }[];
  /** The Content-Disposition line of each upload's file part, as sent (UTF-8). */
  uploadDispositions: string[];
  /** Statuses each new job will walk through. */
  script: string[];
  maxUploadBytes: number;
  /** Replace the next response to `METHOD path` with a fault. */
  faults: Map<string, 'reset-after-receive' | { status: number; body: unknown }>;
  apiKey: string;
  close(): Promise<void>;
}

export async function startFakeMeetingServer(apiKey: string): Promise<FakeMeetingServer> {
  const state: Omit<FakeMeetingServer, 'server' | 'url' | 'close'> = {
    jobs: new Map(),
    uploads: [],
    uploadDispositions: [],
    script: ['PENDING', 'TRANSCRIBING', 'SUMMARIZING', 'COMPLETED'],
    maxUploadBytes: 50 * 1024 * 1024,
    faults: new Map(),
    apiKey,
  };
  let counter = 0;

  const view = (job: FakeJob) => ({
    id: job.id,
    status: job.script[0],
    progress: job.script[0] === 'COMPLETED' ? 100 : 10,
    credits: 4,
    creditsCharged: job.script[0] === 'COMPLETED',
    title: job.title,
    transcript: [],
    translatedTranscript: [],
    speakerNames: {},
    summary: { overview: 'ok', topics: [], decisions: [], actionItems: [], openQuestions: [] },
    warning: null,
    errorMessage: job.errorMessage,
    unknownField: 'kept',
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://x');
    const route = `${request.method} ${url.pathname}`;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if (request.headers.authorization !== `Bearer ${state.apiKey}`) {
      sendJson(response, 401, { error: 'invalid API key' });
      return;
    }
    const fault = state.faults.get(route);
    if (fault) {
      state.faults.delete(route);
      if (fault === 'reset-after-receive') {
        // The server acts on the request, then the connection drops before the answer.
        act(route, url, request, raw, () => undefined);
        request.socket.destroy();
        return;
      }
      sendJson(response, fault.status, fault.body);
      return;
    }
    act(route, url, request, raw, (status, payload) => sendJson(response, status, payload));
  }

  function act(
    route: string,
    url: URL,
    request: IncomingMessage,
    raw: Buffer,
    reply: (status: number, body: unknown) => void,
  ) {
    if (route === `POST ${API}/uploads`) {
      state.uploads.push({ bytes: raw.length, contentType: request.headers['content-type'] ?? '' });
      const disposition = /Content-Disposition: [^\r\n]*filename[^\r\n]*/.exec(raw.toString('utf8'));
      if (disposition) state.uploadDispositions.push(disposition[0]);
      counter += 1;
      reply(200, { uploadReceipt: `receipt-${counter}` });
      return;
    }
    const json = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
    if (route === `GET ${API}/jobs`) {
      reply(200, {
        jobs: [...state.jobs.values()].map((job) => ({
          id: job.id,
          status: job.script[0],
          title: job.title,
        })),
        maxUploadBytes: state.maxUploadBytes,
        pricing: { minimumCredits: 4 },
      });
      return;
    }
    if (route === `POST ${API}/jobs`) {
      const existing = [...state.jobs.values()].find((job) => job.receipt === json.uploadReceipt);
      if (existing) {
        reply(200, { id: existing.id });
        return;
      }
      if (typeof json.uploadReceipt !== 'string' || !json.uploadReceipt.startsWith('receipt-')) {
        reply(400, { error: 'invalid upload receipt' });
        return;
      }
      counter += 1;
      const job: FakeJob = {
        id: `job-${counter}`,
        receipt: json.uploadReceipt,
        script: [...state.script],
        title: 'Untitled',
        errorMessage: null,
        request: json,
      };
      state.jobs.set(job.id, job);
      reply(201, { id: job.id });
      return;
    }
    const match = /^\/api\/conference-summary\/v1\/jobs\/([^/]+)$/.exec(url.pathname);
    const job = match ? state.jobs.get(decodeURIComponent(match[1] ?? '')) : undefined;
    if (!job) {
      reply(404, { error: 'recording inaccessible' });
      return;
    }
    if (request.method === 'GET') {
      const current = view(job);
      if (job.script.length > 1) job.script.shift();
      if (job.script[0] === 'FAILED') job.errorMessage = 'audio could not be decoded';
      reply(200, { job: current });
      return;
    }
    if (request.method === 'PATCH') {
      if (typeof json.title === 'string') job.title = json.title;
      reply(200, { job: view(job) });
      return;
    }
    if (request.method === 'POST') {
      if (json.action === 'cancel') job.script = ['CANCELLED'];
      reply(200, { success: true });
      return;
    }
    if (request.method === 'DELETE') {
      state.jobs.delete(job.id);
      reply(200, { success: true });
      return;
    }
    reply(405, { error: 'method not allowed' });
  }

  const server = await startServer(handle);
  return Object.assign(state, { server, url: server.url, close: () => server.close() });
}
