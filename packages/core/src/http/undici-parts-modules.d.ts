// Types of the undici files that undici-parts.ts imports by path: undici declares its API only for its root.
declare module 'undici/lib/dispatcher/agent.js' {
  export { Agent as default } from 'undici';
}
declare module 'undici/lib/api/api-request.js' {
  const request: (
    this: import('undici').Dispatcher,
    options: import('undici').Dispatcher.RequestOptions,
  ) => Promise<import('undici').Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/core/connect.js' {
  export { buildConnector as default } from 'undici';
}
declare module 'undici/lib/core/errors.js' {
  export { errors as default } from 'undici';
}
declare module 'undici/lib/core/util.js' {
  const util: { parseURL(url: string | URL): URL };
  export default util;
}
