// @ts-check
// Plain JavaScript: server.mjs, which answers this path before Next routes it, imports it before
// anything is compiled; the browser's init posts its envelopes here. app/monitoring/ is the route
// that answers it under `next dev`.

/** Same-origin path the browser posts its envelopes to. */
export const TUNNEL_PATH = '/monitoring';
