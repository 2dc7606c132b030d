/**
 * A speech request as the service accepts it, checked before anything is sent, and a text of any length as
 * the requests it becomes: split at sentence boundaries into parts of at most 200 characters, each checked,
 * each a `speech-synthesis` ledger entry of its own whose fingerprint is its checked body (the same body is
 * the same paid task).
 */
import { SPEECH_SYNTHESIS_SERVICE } from '../constants/service-table.js';
import { SpeechRequest, speechRequestIssues } from '../contracts/speech-synthesis.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { splitSpeechText } from './split-speech-text.js';

/** A speech request whose text may be of any length. */
export type TextSpeechRequest = Omit<SpeechRequest, 'text'> & { text: string };

/** A part a long text sends, and the job-ledger entry that records its task. */
export interface TextSynthesisPartPlan {
  text: string;
  /** Fingerprint of the part's `speech-synthesis` ledger entry. */
  fingerprint: string;
}

/** The request with every rule of the service checked; throws ValidationError (nothing was sent). */
export function validateSpeechRequest(request: SpeechRequest): SpeechRequest {
  const parsed = SpeechRequest.safeParse(request);
  const issues = parsed.success ? speechRequestIssues(parsed.data) : describeIssues(parsed.error, request);
  if (!parsed.success || issues.length > 0) {
    throw new ValidationError(`Invalid speech request: ${listIssues(issues)}. Nothing was sent.`, issues);
  }
  if (parsed.data.clone_audio?.startsWith('https://')) {
    assertPublicHttpUrl(parsed.data.clone_audio, { field: 'clone_audio', httpsOnly: true });
  }
  return parsed.data;
}

/** The ledger identity of one part's task: the same checked body is the same paid task. */
export function partFingerprint(body: SpeechRequest): string {
  return fingerprint({ service: SPEECH_SYNTHESIS_SERVICE, body });
}

/** The text split into parts, each checked (before the first one is sent). */
export function partBodies(request: TextSpeechRequest): SpeechRequest[] {
  const texts = splitSpeechText(request.text, request.language ? { language: request.language } : {});
  if (texts.length === 0) {
    throw new ValidationError('text is empty. Nothing was sent.', [{ path: 'text', message: 'empty' }]);
  }
  return texts.map((text) => validateSpeechRequest({ ...request, text }));
}

/**
 * The parts a long text sends, in order, with their entries' fingerprints. A submission checks each body
 * again before fingerprinting it: the same here, so that the names match.
 */
export function textParts(request: TextSpeechRequest): TextSynthesisPartPlan[] {
  return partBodies(request).map((body) => ({
    text: body.text,
    fingerprint: partFingerprint(validateSpeechRequest(body)),
  }));
}
