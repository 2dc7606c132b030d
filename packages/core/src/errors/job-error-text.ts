/**
 * The failure reason of a platform job as text. Services word a failed job's `error` differently (a
 * string, `{ code, message }`, something else), and every client and view shows it the same way.
 */
export function jobErrorText(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    const { code, message } = error as { code?: unknown; message: string };
    return typeof code === 'string' ? `${code}: ${message}` : message;
  }
  return JSON.stringify(error);
}
