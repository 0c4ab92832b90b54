import 'server-only';
import {
  type DsnComponents,
  dsnToString,
  type EnvelopeItemType,
  envelopeItemTypeToDataCategory,
  getEnvelopeEndpointWithUrlEncodedAuth,
  isRateLimited,
  makeDsn,
  parseEnvelope,
  type RateLimits,
  updateRateLimits,
} from '@sentry/core';
import { mediaTypeOf } from '@/lib/server/media-type';
import type { RateLimiter } from '@/lib/server/rate-limiter';
import { BodyTimeoutError, BodyTooLargeError, readBodyCapped } from '@/lib/server/read-body';
import type { TunnelRequest } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';
import { envelopeHeaders, hasDuplicateKeys } from '@/lib/tunnel/envelope-headers';
import type { DeliveryResult, EnvelopeSpool } from '@/lib/tunnel/envelope-spool';
import { headerOf, type IngestFailure, type IngestResponse, postToIngest } from '@/lib/tunnel/ingest-client';

export type TunnelOptions = {
  /** The only DSN whose envelopes are forwarded; undefined turns the tunnel off. */
  dsn: string | undefined;
  maxBodyBytes: number;
  /** How long the whole body may take to arrive; a slower client gets 408. */
  bodyDeadlineMs: number;
  upstreamTimeoutMs: number;
  /** Per-client cap on tunnel requests. */
  limiter?: RateLimiter;
  /** Where envelopes wait while ingest is down; without one, the failure is answered as is. */
  spool?: EnvelopeSpool;
};

// Headers through which ingest tells the SDK to back off; the browser SDK honours them.
const PASSED_THROUGH_HEADERS = ['retry-after', 'x-sentry-rate-limits'];
// What a browser SDK sends: fetch sets text/plain for a string body, sendBeacon none at all.
const ACCEPTED_CONTENT_TYPES = new Set(['', 'text/plain', 'application/x-sentry-envelope', 'application/octet-stream']);
const SPOOL_FULL_RETRY_AFTER_SECONDS = 60;
// Far more items than a browser SDK puts in one envelope (an event or a transaction, its attachments).
const MAX_ENVELOPE_ITEMS = 1_000;

type Refusal = { status: 400 | 403; reason: string };

/**
 * Why an envelope may not go to our project, or, when it may, the types of its items, as Relay
 * walks them. Its header must name our DSN, and no item header may name a DSN at all: a relay
 * further on could honour a second one.
 */
function checkEnvelope(body: Uint8Array, ownDsn: DsnComponents): Refusal | { itemTypes: unknown[] } {
  if (body.byteLength === 0) {
    return { status: 400, reason: 'Empty body: expected a Sentry envelope' };
  }
  // What the check reads must be what every later reader reads: the items as Relay walks them.
  // First, as it stops at the item past the cap, before the SDK's parser reads every payload.
  const headers = envelopeHeaders(body, MAX_ENVELOPE_ITEMS);
  if (headers === 'tooManyItems') {
    return { status: 400, reason: `Envelope has more than ${MAX_ENVELOPE_ITEMS} items` };
  }
  if (headers === undefined) {
    return { status: 400, reason: 'Malformed body: expected a Sentry envelope' };
  }
  let header: unknown;
  let items: [unknown, unknown][];
  try {
    [header, items] = parseEnvelope(body) as [unknown, [unknown, unknown][]];
  } catch {
    return { status: 400, reason: 'Malformed body: expected a Sentry envelope' };
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header) || !('dsn' in header)) {
    return { status: 400, reason: 'Envelope header names no DSN' };
  }
  if (headers.lines.some(hasDuplicateKeys)) {
    return { status: 400, reason: 'Envelope headers name a key twice' };
  }
  // Compared as the browser SDK writes it, never parsed: Sentry's DSN parser logs what it cannot
  // read, and this text is the client's.
  if (header.dsn !== dsnToString(ownDsn)) {
    return { status: 403, reason: 'Envelope is not for this project' };
  }
  const itemHeaders = [...items.map(([itemHeader]) => itemHeader), ...headers.itemHeaders];
  if (itemHeaders.some((itemHeader) => typeof itemHeader === 'object' && itemHeader !== null && 'dsn' in itemHeader)) {
    return { status: 403, reason: 'Envelope names a second DSN' };
  }
  // No SDK sends one; kept while ingest is down, each would take a file, and a spool's room is
  // counted in bytes.
  if (headers.itemHeaders.length === 0) {
    return { status: 400, reason: 'Envelope holds no items' };
  }
  return { itemTypes: headers.itemHeaders.map((itemHeader) => itemHeader.type) };
}

type IngestAnswer = IngestResponse | IngestFailure;

/** Where envelopes for `ownDsn` go, with its key in the query, as the SDK sends them. */
function ingestEndpoint(ownDsn: DsnComponents): URL {
  return new URL(getEnvelopeEndpointWithUrlEncodedAuth(ownDsn));
}

/** Ingest is down for now: worth keeping the envelope and trying again later. */
function isIngestDown(answer: IngestAnswer): boolean {
  return 'failure' in answer || answer.status >= 500;
}

/**
 * How the spool delivers to ingest, one attempt an envelope, minding ingest's rate limits as the
 * SDK's transport does: what ingest refuses with 429 (over the project's quota) is dropped, and
 * until the limits it named expire (`X-Sentry-Rate-Limits`, else `Retry-After`) an envelope of only
 * limited categories is dropped without being sent. Kept for later, it would hold every envelope
 * behind it, errors too when only transactions are limited, and the browser would be told 200.
 */
export function ingestDelivery(ownDsn: string, timeoutMs: number): (body: Uint8Array) => Promise<DeliveryResult> {
  const dsn = makeDsn(ownDsn);
  const endpoint = dsn && ingestEndpoint(dsn);
  let limits: RateLimits = {};
  return async (body) => {
    // A spool folder can outlive the build that filled it, or be shared by mistake: what was taken
    // for another project (or an older key) never goes to this one. It is dropped and counted.
    if (dsn === undefined || endpoint === undefined) return { outcome: 'rejected' };
    const checked = checkEnvelope(body, dsn);
    if ('reason' in checked) return { outcome: 'rejected' };
    // The rate-limit categories of its items, as the SDK's transport reads them.
    const categories = checked.itemTypes.map((type) => envelopeItemTypeToDataCategory(type as EnvelopeItemType));
    if (categories.every((category) => isRateLimited(limits, category))) {
      return { outcome: 'rateLimited' };
    }
    const answer = await postToIngest(endpoint, body, { timeoutMs });
    if ('failure' in answer) {
      return { outcome: 'retry' };
    }
    const { status } = answer;
    // Limits come from a 429, or from an accepted envelope's X-Sentry-Rate-Limits. A 5xx's
    // Retry-After (a proxy's overload, a maintenance page) says when ingest is back, and what waits
    // for that is kept, never dropped.
    if (status === 429 || status < 300) {
      limits = updateRateLimits(limits, {
        statusCode: status,
        headers: {
          'x-sentry-rate-limits': headerOf(answer, 'x-sentry-rate-limits') ?? null,
          'retry-after': status === 429 ? (headerOf(answer, 'retry-after') ?? null) : null,
        },
      });
    }
    if (status === 429) {
      return { outcome: 'rateLimited' };
    }
    if (status >= 500) {
      return { outcome: 'retry' };
    }
    return status < 300 ? { outcome: 'delivered' } : { outcome: 'rejected' };
  };
}

/**
 * A refusal sent before the body is read, which also closes the connection: to keep it, Node would
 * read the rest of the body, up to the request timeout, however much the client goes on sending.
 */
function refuseUnread(status: number, text: string, headers: Record<string, string> = {}): Response {
  return textResponse(status, text, { ...headers, connection: 'close' });
}

type Kept = Awaited<ReturnType<EnvelopeSpool['enqueue']>>;

/** The browser's answer once its envelope is in the spool, or, with ingest down, why it is not. */
function answerKept(kept: Kept): Response {
  if (kept !== 'queued') {
    const reason = {
      full: 'the spool is full',
      unwritable: 'the spool cannot be written',
      closed: 'the server is shutting down',
    }[kept];
    return textResponse(503, `Sentry is unreachable and ${reason}`, {
      'retry-after': String(SPOOL_FULL_RETRY_AFTER_SECONDS),
    });
  }
  // The SDK wants a 2xx and reads nothing from the body.
  return new Response('{}', { status: 200, headers: { 'content-type': 'application/json', 'x-tunnel-spooled': '1' } });
}

/**
 * Forwards a browser's envelope to our own Sentry project and nowhere else: the target is always
 * the configured DSN, and an envelope naming any other DSN is refused, so this is no open relay.
 * While ingest is down, envelopes wait in the spool and the browser is told they were taken.
 * It takes POST alone, whichever server hands it the request (server.mjs, or the dev route).
 */
export async function forwardEnvelope(
  request: TunnelRequest,
  options: TunnelOptions,
  client = 'unknown',
): Promise<Response> {
  if (request.method !== 'POST') {
    return refuseUnread(405, 'Method not allowed: the tunnel takes POST', { allow: 'POST' });
  }
  const ownDsn = options.dsn === undefined ? undefined : makeDsn(options.dsn);
  if (ownDsn === undefined) {
    return refuseUnread(404, 'Error reporting is not configured');
  }
  // Sentry's own rewrite tunnel reads the target project from the query; ours takes none.
  if (request.url.includes('?')) {
    return refuseUnread(403, 'The tunnel takes no query parameters');
  }
  const verdict = options.limiter?.take(client);
  if (verdict && !verdict.allowed) {
    return refuseUnread(429, 'Too many error reports from this client', {
      'retry-after': String(Math.ceil(verdict.retryAfterMs / 1_000)),
    });
  }
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase() ?? 'identity';
  if (encoding !== 'identity') {
    return refuseUnread(415, 'Compressed bodies are not accepted');
  }
  const contentType = mediaTypeOf(request.headers);
  if (!ACCEPTED_CONTENT_TYPES.has(contentType)) {
    return refuseUnread(415, `Content type ${contentType} is not a Sentry envelope`);
  }

  let body: Uint8Array;
  try {
    body = await readBodyCapped(request, options.maxBodyBytes, options.bodyDeadlineMs);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return refuseUnread(413, `Envelope larger than ${options.maxBodyBytes} bytes`);
    }
    if (error instanceof BodyTimeoutError) {
      return refuseUnread(408, 'The envelope did not arrive in time');
    }
    return refuseUnread(400, 'Could not read the request body');
  }
  const checked = checkEnvelope(body, ownDsn);
  if ('reason' in checked) {
    return textResponse(checked.status, checked.reason);
  }

  const { spool } = options;
  // Later envelopes queue behind earlier ones, so ingest receives them in order. One the spool
  // cannot take then goes to ingest at once, ahead of them, rather than be refused: the browser SDK
  // does not send again what was answered.
  const keptBehind = spool?.hasPending ? await spool.enqueue(body) : undefined;
  if (keptBehind === 'queued') {
    return answerKept(keptBehind);
  }
  const answer = await postToIngest(ingestEndpoint(ownDsn), body, { timeoutMs: options.upstreamTimeoutMs });
  if (spool && isIngestDown(answer)) {
    return answerKept(keptBehind ?? (await spool.enqueue(body)));
  }
  if ('failure' in answer) {
    return answer.failure === 'timeout'
      ? textResponse(504, 'Sentry did not answer in time')
      : textResponse(502, 'Sentry could not be reached');
  }
  // The body is ingest's own short JSON answer (the event id); passing it keeps SDK debugging honest.
  const headers = new Headers({ 'content-type': headerOf(answer, 'content-type') ?? 'application/json' });
  for (const name of PASSED_THROUGH_HEADERS) {
    const value = headerOf(answer, name);
    if (value !== undefined) {
      headers.set(name, value);
    }
  }
  // A 204, 205 or 304 (from a proxy in front of a self-hosted Relay) may carry no body.
  const hasNoBody = answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(hasNoBody ? null : new Uint8Array(answer.body), { status: answer.status, headers });
}
