/**
 * Pieces shared by the two downloaders that leave this machine's trust boundary (platform result media,
 * `download-media.ts`, and a caller's remote input, `fetch-remote-input.ts`): how a URL is shown in
 * messages, how an unwanted body is dropped, how a refused private address and a failed transfer read.
 */
import type { Dispatcher } from 'undici';
import type { PrivateAddressError } from '../errors/polymodal-error.js';
import { ConnectionError, PolymodalError, TimeoutError, ValidationError } from '../errors/polymodal-error.js';

/** URL for messages: no query string, which may carry a signature or a token. */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Drops a response body not worth reading; the abort it causes must not become an uncaught error. */
export function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function privateAddressRefusal(url: URL, error: PrivateAddressError): ValidationError {
  const address = typeof error.address === 'string' ? error.address : 'an address';
  const problem =
    error.stage === 'connect'
      ? `the connection to ${url.hostname} reached ${address}, a private, loopback or otherwise non-public ` +
        'network address, although the name had been checked (it may have been re-pointed)'
      : `${url.hostname} resolves to ${address}, a private, loopback or otherwise non-public network address`;
  return new ValidationError(
    `Refused to download from ${url.hostname}: ${problem}; nothing was downloaded.`,
    [{ path: 'url', message: 'private address' }],
  );
}

/**
 * The error a failed transfer ends with: the caller's own abort unchanged, the transfer's timeout as a
 * TimeoutError, our own refusals as they are, a private address as the refusal above, anything else as a
 * ConnectionError naming the URL (without its query).
 */
export function transferFailure(
  error: unknown,
  context: { url: URL; signal: AbortSignal | undefined; timeout: AbortSignal; timeoutMs: number },
): unknown {
  const { url, signal, timeout, timeoutMs } = context;
  if (signal?.aborted) return signal.reason;
  if (timeout.aborted) {
    return new TimeoutError(`Downloading ${displayUrl(url)} took longer than ${timeoutMs} ms.`, timeoutMs);
  }
  const code = (error as { code?: unknown })?.code;
  // Before the PolymodalError pass-through (a PrivateAddressError is one): the refusal names the URL's
  // host and says nothing was downloaded. Matched by code, not class: it may come from another copy.
  if (code === 'EPRIVATEADDRESS') return privateAddressRefusal(url, error as PrivateAddressError);
  if (PolymodalError.isInstance(error)) return error;
  return new ConnectionError(
    `Downloading ${displayUrl(url)} failed: ${error instanceof Error ? error.message : String(error)}.`,
    { requestMayHaveArrived: true, ...(typeof code === 'string' ? { code } : {}), cause: error },
  );
}
