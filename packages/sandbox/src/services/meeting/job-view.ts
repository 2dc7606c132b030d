/**
 * How a meeting job is shown: the full view of `GET /jobs/{id}` (artifacts only once they exist, the
 * translation derived on every look, the summary built once) and the short entry of the job list.
 */
import { buildSummary, type MeetingSummary } from './build-summary.js';
import { defaultSpeakerNames } from './build-transcript.js';
import { type JobRecord, type MeetingServiceState, moment } from './meeting-service-state.js';
import { DETECTED_LANGUAGE, translateText } from './phrase-translations.js';

const WARNING_NO_SPEECH = 'No speech was detected in the recording: the transcript and summary are empty.';
const WARNING_ESTIMATED =
  'The duration of the recording could not be read; it was estimated from the file size (credits are based on it).';

function summaryOf(job: JobRecord): MeetingSummary {
  job.summary ??= buildSummary({
    transcript: job.transcript,
    durationSeconds: job.upload.durationSeconds,
    meetingDate: new Date(job.createdAt),
  });
  return job.summary;
}

const sourceLanguageOf = (job: JobRecord) =>
  job.sourceLanguage === 'auto' ? DETECTED_LANGUAGE : job.sourceLanguage;

export function jobView(state: MeetingServiceState, job: JobRecord) {
  const current = moment(state, job);
  const warnings: string[] = [];
  if (job.upload.durationEstimated) warnings.push(WARNING_ESTIMATED);
  if (current.artifacts.transcript && job.transcript.length === 0) warnings.push(WARNING_NO_SPEECH);
  const sourceLanguage = sourceLanguageOf(job);
  return {
    id: job.id,
    status: current.status,
    progress: current.progress,
    credits: job.credits,
    creditsCharged: job.creditsCharged,
    title: job.title,
    createdAt: new Date(job.createdAt).toISOString(),
    durationSeconds: job.upload.durationSeconds,
    sourceLanguage: job.sourceLanguage,
    targetLanguage: job.targetLanguage,
    asrEngine: job.asrEngine,
    noiseReduction: job.noiseReduction,
    minSpeakers: job.minSpeakers,
    maxSpeakers: job.maxSpeakers,
    transcript: current.artifacts.transcript ? job.transcript : null,
    translatedTranscript: current.artifacts.translation
      ? job.transcript.map((segment) => ({
          ...segment,
          text: translateText(segment.text, job.targetLanguage, sourceLanguage),
        }))
      : null,
    speakerNames: current.artifacts.transcript
      ? { ...defaultSpeakerNames(job.transcript), ...job.speakerNames }
      : null,
    summary: current.artifacts.summary ? summaryOf(job) : null,
    warning: warnings.length ? warnings.join(' ') : null,
    errorMessage: current.errorMessage,
  };
}

export function jobListEntry(state: MeetingServiceState, job: JobRecord) {
  const current = moment(state, job);
  return {
    id: job.id,
    title: job.title,
    status: current.status,
    progress: current.progress,
    createdAt: new Date(job.createdAt).toISOString(),
    credits: job.credits,
  };
}
