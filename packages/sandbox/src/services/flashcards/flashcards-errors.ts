/**
 * The flashcards service's error shape: every error body carries `success: false` and a machine-readable
 * `code` beside the message, so clients branch on the code rather than on the text.
 */
import { HttpError, type HttpErrorOptions } from '../../framework/http-error.js';
import { rejectUnknownFields } from '../../media/media-request.js';

export interface FlashcardsErrorOptions {
  headers?: HttpErrorOptions['headers'];
  /** Fields after `success` and `code` (e.g. the key's `limits`). */
  extra?: Record<string, unknown>;
}

export function flashcardsError(
  status: number,
  code: string,
  message: string,
  options: FlashcardsErrorOptions = {},
): HttpError {
  return new HttpError(status, message, {
    headers: options.headers ?? {},
    fields: { success: false, code, ...options.extra },
  });
}

/** Unknown fields are invalid requests like any other option error (with the service's error code). */
export function rejectUnknown(values: Record<string, unknown>, known: readonly string[]): void {
  try {
    rejectUnknownFields(values, known);
  } catch (error) {
    if (!HttpError.isInstance(error)) throw error;
    throw flashcardsError(400, 'invalid_request', error.message);
  }
}
