/**
 * The parts of undici that core uses (`Agent`, `request`, `buildConnector`), loaded from their own files and
 * as late as possible. undici's root module loads everything it offers at once (fetch, caches, cookies,
 * mocks, WebSocket, the SQLite cache store): about 110 files, 70 ms and 9 MiB at the start of every
 * process, against 26 files for these (measured on Node 20). undici ships no `exports` map, so
 * its files are importable by path; the types still come from undici's own declarations (see
 * undici-parts-modules.d.ts).
 *
 * An MCP server makes its HTTP clients at start but may never send a request (a host starts every
 * configured server at launch), so the agent and the request API (HTTP/1 and HTTP/2 clients, the llhttp
 * parser) are loaded by the first `request()`: the `Agent` here is undici's Agent made on the first
 * request it carries. It is meant for this module's `request()` only, which loads undici before
 * dispatching; core never hands its own agents to anything else. `request` is undici's `request()` (the
 * one in its root, minus the global dispatcher): it parses the URL the same way and runs undici's request
 * API on the dispatcher given, which core always passes.
 */
// For every program that compiles this file, the examples' too (they include only what they import).
/// <reference path="./undici-parts-modules.d.ts" />
import { EventEmitter } from 'node:events';
import type {
  Dispatcher,
  Agent as UndiciAgent,
  buildConnector as undiciBuildConnector,
  request as undiciRequest,
} from 'undici';

interface LoadedParts {
  Agent: typeof UndiciAgent;
  runRequest: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  buildConnector: typeof undiciBuildConnector;
  ClientClosedError: new () => Error;
  parseURL: (url: string | URL) => URL;
}

let loaded: LoadedParts | undefined;
let loading: Promise<LoadedParts> | undefined;

/**
 * Every part, undici's core helpers included: those load Node's `net`, `tls`, `http`, `assert` and
 * `querystring` (about 10 ms of a server's start on Node 20), so they wait for the first request too.
 */
function loadParts(): Promise<LoadedParts> {
  loading ??= Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/api-request.js'),
    import('undici/lib/core/connect.js'),
    import('undici/lib/core/errors.js'),
    import('undici/lib/core/util.js'),
  ]).then(([agent, api, connect, errors, util]) => {
    loaded = {
      Agent: agent.default,
      runRequest: api.default,
      buildConnector: connect.default,
      ClientClosedError: errors.default.ClientClosedError,
      parseURL: util.default.parseURL,
    };
    return loaded;
  });
  // An import that failed (a file missing for a moment) is tried again by the next request.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

function partsLoaded(): LoadedParts {
  if (!loaded) throw new Error('undici is not loaded yet: send requests through request() of undici-parts');
  return loaded;
}

/**
 * undici's `buildConnector`, built when the connector first connects: a connector runs only inside an
 * agent's dispatch, which `request()` reaches after loading undici. Typed by undici's public declaration,
 * so that the emitted types name only undici's root.
 */
export const buildConnector: typeof undiciBuildConnector = (options) => {
  let connect: undiciBuildConnector.connector | undefined;
  return (target, callback) => {
    connect ??= partsLoaded().buildConnector(options);
    connect(target, callback);
  };
};

/** undici's Agent, made with these options when the first request through it is dispatched. */
class DeferredAgent extends EventEmitter {
  readonly #options: UndiciAgent.Options | undefined;
  #agent: UndiciAgent | undefined;
  #closed = false;

  constructor(options?: UndiciAgent.Options) {
    super();
    this.#options = options;
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const parts = partsLoaded();
    if (this.#closed && !this.#agent) throw new parts.ClientClosedError();
    this.#agent ??= new parts.Agent(this.#options);
    return this.#agent.dispatch(options, handler);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#agent?.close();
  }

  async destroy(error?: Error | null): Promise<void> {
    this.#closed = true;
    await this.#agent?.destroy(error ?? null);
  }
}

// Typed as undici's Agent: core makes it, passes it to request() and closes it, nothing else. No type can
// say so without the cast: undici's Agent declares every Dispatcher method (request, stream, pipeline,
// connect, upgrade, with their overloads), which a deferred agent would have to implement only to forward.
export const Agent = DeferredAgent as unknown as typeof UndiciAgent;
export type Agent = UndiciAgent;

type RequestOptions = NonNullable<Parameters<typeof undiciRequest>[1]> & { dispatcher: Dispatcher };

export async function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { runRequest, parseURL } = loaded ?? (await loadParts());
  const target = parseURL(url);
  const { dispatcher, ...rest } = options;
  return runRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method || (rest.body ? 'PUT' : 'GET'),
  } as Dispatcher.RequestOptions);
}
