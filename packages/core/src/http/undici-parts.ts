/**
 * The three parts of undici that core uses (`Agent`, `request`, `buildConnector`), loaded from their own
 * files. undici's root module loads everything it offers at once (fetch, caches, cookies, mocks, WebSocket,
 * the SQLite cache store): about 110 files, 70 ms and 9 MiB at the start of every process, against 26
 * files for these (measured on Node 20, issue 14). undici ships no `exports` map, so its files are
 * importable by path; the types still come from undici's own declarations (see undici-parts-modules.d.ts).
 *
 * `request` is undici's `request()` (the one in its root, minus the global dispatcher): it parses the URL the
 * same way and runs undici's request API on the dispatcher given, which core always passes.
 */
import type { Dispatcher, request as undiciRequest } from 'undici';
import runRequest from 'undici/lib/api/api-request.js';
import undiciUtil from 'undici/lib/core/util.js';

export { default as buildConnector } from 'undici/lib/core/connect.js';
export { default as Agent } from 'undici/lib/dispatcher/agent.js';

type RequestOptions = NonNullable<Parameters<typeof undiciRequest>[1]> & { dispatcher: Dispatcher };

export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const target = undiciUtil.parseURL(url);
  const { dispatcher, ...rest } = options;
  return runRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method || (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}
