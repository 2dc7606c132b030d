/**
 * Client of the catalog video service (`/api/modelhub/v1`). A request is checked against the live catalog
 * before it is sent (unknown model, missing required field, unknown option, wrong type → ValidationError,
 * nothing sent), started at most once through the job engine, and polled until it stops.
 *
 * Choices where the spec is silent: the catalog is cached for five minutes; the bare id of a model is sent
 * as its `hub:` id; the POST is retried only when it provably never arrived or after an explicit 429 (the
 * service offers no idempotency key); status is polled every 3 s.
 */

import { CATALOG_VIDEO_API_PATH, CATALOG_VIDEO_SERVICE } from '../constants/service-table.js';
import {
  CatalogEnvelope,
  type CatalogModel,
  CatalogVideoRequest,
  type VideoJob,
} from '../contracts/video.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { type CallOptions, requestOptionsOf, startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import { catalogRequestIssues, findCatalogModel } from './validate-catalog-request.js';
import { checkMediaReference, createVideoJobClient, type VideoSubmitOptions } from './video-job-client.js';

const CATALOG_CACHE_MS = 5 * 60 * 1000;

export interface SubmittedVideo {
  requestId: string;
  status: string;
  model: string;
  /** True when the job of an identical earlier request was returned and nothing was sent. */
  resumed: boolean;
  /** True when this call joined an identical request in flight (nothing was sent twice). */
  joined: boolean;
}

export interface CatalogVideoClient {
  models(options?: CallOptions & { deadline?: number; refresh?: boolean }): Promise<CatalogModel[]>;
  /** The catalog entry the request is for; throws ValidationError listing every problem. */
  validate(
    request: CatalogVideoRequest,
    options?: CallOptions & { deadline?: number },
  ): Promise<CatalogModel>;
  submit(request: CatalogVideoRequest, options?: VideoSubmitOptions): Promise<SubmittedVideo>;
  /** One read of the job. */
  retrieve(requestId: string, options?: CallOptions): Promise<VideoJob>;
  /** Waits until the job stops or `deadline` comes, never reading faster than the service's interval. */
  poll(requestId: string, options: JobPollOptions<VideoJob>): Promise<PollOutcome<VideoJob>>;
  wait(requestId: string, options?: JobWaitOptions<VideoJob>): Promise<VideoJob>;
}

export function createCatalogVideoClient(options: {
  http: HttpClient;
  engine?: JobEngine;
  pollIntervalMs?: number;
  now?: () => number;
}): CatalogVideoClient {
  const { http, engine } = options;
  const now = options.now ?? Date.now;
  let cache: { at: number; models: CatalogModel[] } | undefined;
  const jobs = createVideoJobClient({
    http,
    apiPath: CATALOG_VIDEO_API_PATH,
    service: CATALOG_VIDEO_SERVICE,
    engine,
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });

  async function models(
    request: CallOptions & { deadline?: number | undefined; refresh?: boolean } = {},
  ): Promise<CatalogModel[]> {
    if (cache && !request.refresh && now() - cache.at < CATALOG_CACHE_MS) return cache.models;
    const response = await http.request({
      method: 'GET',
      path: `${CATALOG_VIDEO_API_PATH}/models`,
      schema: CatalogEnvelope,
      idempotent: true,
      ...requestOptionsOf(request),
    });
    cache = { at: now(), models: response.data.data };
    return cache.models;
  }

  async function validate(
    request: CatalogVideoRequest,
    extra: CallOptions & { deadline?: number | undefined } = {},
  ): Promise<CatalogModel> {
    const shape = CatalogVideoRequest.safeParse(request);
    if (!shape.success) {
      const issues = describeIssues(shape.error, request);
      throw new ValidationError(
        `The video request is malformed: ${listIssues(issues)}. Nothing was sent.`,
        issues,
      );
    }
    for (const [field, items] of Object.entries(request.inputs ?? {})) {
      (items ?? []).forEach((item, index) => {
        checkMediaReference(item.url, `inputs.${field}[${index}].url`);
      });
    }
    const catalog = await models(extra);
    const model = findCatalogModel(catalog, request.model);
    if (!model) {
      throw new ValidationError(
        `${request.model} is not in the video catalog. Models: ${catalog.map((item) => item.id).join(', ')}. Nothing was sent.`,
        [{ path: 'model', message: 'unknown model' }],
      );
    }
    const issues = catalogRequestIssues(model, request);
    if (issues.length > 0) {
      throw new ValidationError(
        `The request does not fit ${model.id}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}. Nothing was sent.`,
        issues,
      );
    }
    return model;
  }

  async function submit(
    request: CatalogVideoRequest,
    options: VideoSubmitOptions = {},
  ): Promise<SubmittedVideo> {
    // `timeout` bounds the whole call (the catalog read and the start): from here on it is the `deadline`.
    const extra = startCall(options);
    const model = await validate(request, extra);
    const body: CatalogVideoRequest = { ...request, model: model.id };
    const started = await jobs.start(body, request.prompt ? request.prompt.slice(0, 80) : model.title, extra);
    return {
      requestId: started.id,
      status: started.status,
      model: model.id,
      resumed: started.resumed,
      joined: started.joined,
    };
  }

  return { models, validate, submit, retrieve: jobs.retrieve, poll: jobs.poll, wait: jobs.wait };
}
