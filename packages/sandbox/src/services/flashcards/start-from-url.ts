/**
 * `POST /jobs/from-url`: a flashcards job from a YouTube link (watch, Shorts, youtu.be) or a public direct
 * video URL. The sandbox never reaches the network: a YouTube video's title and length come from its id
 * (or the configured public media), a direct URL answers only as configured, under the private-network
 * and redirect rules, and must hold a video by its content.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { sniffVideoContainer } from '@polymodal/core/media';
import { parseBuffer } from 'music-metadata';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { SandboxResponse } from '../../framework/sandbox-response.js';
import { SAMPLE_VIDEO_SECONDS, sampleVideo } from '../../media/media-fixtures.js';
import { readObject } from '../../media/media-request.js';
import { lookUpRemote } from '../../media/resolve-media-url.js';
import { ESTIMATE_BYTES_PER_SECOND, type VideoSource } from './flashcard-job.js';
import { OPTION_FIELDS, parseFlashcardOptions, youtubeVideoId } from './flashcard-options.js';
import { flashcardsError, rejectUnknown } from './flashcards-errors.js';
import { admit, checkDuration, type FlashcardsState } from './flashcards-state.js';
import { startJob } from './start-flashcard-job.js';

function youtubeSource(state: FlashcardsState, url: string): VideoSource {
  const id = youtubeVideoId(url);
  if (!id) throw flashcardsError(400, 'invalid_url', 'url is not a YouTube watch, Shorts or youtu.be link');
  const entry = state.publicMedia[url];
  // The sandbox does not reach YouTube: title and length are derived from the video id (or configured).
  const hash = createHash('sha256').update(id).digest().readUInt16LE(0);
  return {
    kind: 'youtube',
    fingerprint: `youtube:${id}`,
    title: entry?.title ?? `YouTube video ${id}`,
    durationSeconds: entry?.durationSeconds ?? 30 + (hash % 150),
    sourceUrl: url,
    file: undefined,
    marker: url,
  };
}

/** The configured remote entry of a URL; a refusal (private host, redirect, status) is an `unsafe_url`. */
function lookUpVideo(state: FlashcardsState, url: string): ReturnType<typeof lookUpRemote> {
  try {
    return lookUpRemote(url, 'url', state.publicMedia);
  } catch (error) {
    if (HttpError.isInstance(error)) throw flashcardsError(error.status, 'unsafe_url', error.message);
    throw error;
  }
}

async function directVideoSource(state: FlashcardsState, url: string): Promise<VideoSource> {
  const entry = lookUpVideo(state, url);
  const bytes =
    entry.base64 !== undefined
      ? Buffer.from(entry.base64, 'base64')
      : entry.fixture === 'mp4'
        ? sampleVideo()
        : undefined;
  if (!bytes || !sniffVideoContainer(bytes)) {
    throw flashcardsError(400, 'unsupported_format', 'url is not a video file (checked by its content)');
  }
  const { maxUploadBytes } = state.limits;
  if ((entry.sizeBytes ?? bytes.length) > maxUploadBytes) {
    throw flashcardsError(413, 'file_too_large', `video too large: the limit is ${maxUploadBytes} bytes`);
  }
  let duration = entry.durationSeconds;
  if (duration === undefined) {
    duration =
      entry.fixture === 'mp4'
        ? SAMPLE_VIDEO_SECONDS
        : await parseBuffer(bytes)
            .then((metadata) => metadata.format.duration)
            .catch(() => undefined);
  }
  const fileName = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'video';
  return {
    kind: 'direct_video_url',
    fingerprint: `url:${url}`,
    title: entry.title ?? path.basename(fileName, path.extname(fileName)),
    durationSeconds: duration ?? Math.max(1, bytes.length / ESTIMATE_BYTES_PER_SECOND),
    sourceUrl: url,
    file: undefined,
    marker: url,
  };
}

export async function startFromUrl(
  state: FlashcardsState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const caller = admit(state, request);
  const body = await readObject(request);
  rejectUnknown(body, ['url', 'source_type', ...OPTION_FIELDS]);
  const options = parseFlashcardOptions(body, false);
  const sourceType = body.source_type ?? 'youtube';
  if (sourceType !== 'youtube' && sourceType !== 'direct_video_url') {
    throw flashcardsError(400, 'invalid_request', 'source_type must be youtube or direct_video_url');
  }
  if (typeof body.url !== 'string' || body.url.trim() === '') {
    throw flashcardsError(400, 'invalid_request', 'url is required');
  }
  const url = body.url.trim();
  const source = sourceType === 'youtube' ? youtubeSource(state, url) : await directVideoSource(state, url);
  checkDuration(state, source.durationSeconds);
  return startJob(state, { caller, options, source });
}
