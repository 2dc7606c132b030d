/**
 * The HTTP service as a table: each route lists the paths it answers and how. The first route that lists
 * a request's path (without its query) serves it, so the table's order settles a path named twice (an
 * endpoint configured at `/metrics` stays the metrics); a path no route lists gets `notFound`.
 */
import type http from 'node:http';

export type Serve = (request: http.IncomingMessage, response: http.ServerResponse) => void | Promise<void>;

export interface Route {
  /** What it is, for a reader of the table. */
  name: string;
  paths: readonly string[];
  serve: Serve;
}

export function routeRequests(routes: readonly Route[], notFound: Serve): Serve {
  return async (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = routes.find((candidate) => candidate.paths.includes(pathname));
    await (route ?? { serve: notFound }).serve(request, response);
  };
}
