import 'server-only';
import { type DsnComponents, getEnvelopeEndpointWithUrlEncodedAuth, makeDsn, parseEnvelope } from '@sentry/core';

export type TunnelOptions = {
  /** The only DSN whose envelopes are forwarded; undefined turns the tunnel off. */
  dsn: string | undefined;
  maxBodyBytes: number;
  upstreamTimeoutMs: number;
};

// Headers through which ingest tells the SDK to back off; the browser SDK honours them.
const PASSED_THROUGH_HEADERS = ['retry-after', 'x-sentry-rate-limits'];

function textResponse(status: number, reason: string, headers: HeadersInit = {}): Response {
  return new Response(reason, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}

class BodyTooLargeError extends Error {}

/** Reads at most `maxBytes` of the body, without buffering past the cap. */
async function readBodyCapped(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    throw new BodyTooLargeError();
  }
  if (request.body === null) {
    return new Uint8Array();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return Buffer.concat(chunks, size);
    }
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
}

function isSameProject(a: DsnComponents, b: DsnComponents): boolean {
  return (
    a.protocol === b.protocol &&
    a.host === b.host &&
    a.port === b.port &&
    a.path === b.path &&
    a.projectId === b.projectId &&
    a.publicKey === b.publicKey
  );
}

/** The DSN named in an envelope's header, or a reason the body is not an envelope. */
function envelopeDsn(body: Uint8Array<ArrayBuffer>): { dsn: string } | { invalid: string } {
  if (body.byteLength === 0) {
    return { invalid: 'Empty body: expected a Sentry envelope' };
  }
  let header: { dsn?: unknown } | undefined;
  try {
    [header] = parseEnvelope(body);
  } catch {
    return { invalid: 'Malformed body: expected a Sentry envelope' };
  }
  if (typeof header !== 'object' || header === null || typeof header.dsn !== 'string') {
    return { invalid: 'Envelope header names no DSN' };
  }
  return { dsn: header.dsn };
}

/**
 * Forwards a browser's envelope to our own Sentry project and nowhere else: the target is always
 * the configured DSN, and an envelope naming any other DSN is refused, so this is no open relay.
 */
export async function forwardEnvelope(request: Request, options: TunnelOptions): Promise<Response> {
  const ownDsn = options.dsn === undefined ? undefined : makeDsn(options.dsn);
  if (ownDsn === undefined) {
    return textResponse(404, 'Error reporting is not configured');
  }

  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await readBodyCapped(request, options.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return textResponse(413, `Envelope larger than ${options.maxBodyBytes} bytes`);
    }
    return textResponse(400, 'Could not read the request body');
  }

  const parsed = envelopeDsn(body);
  if ('invalid' in parsed) {
    return textResponse(400, parsed.invalid);
  }
  const envelopeDsnComponents = makeDsn(parsed.dsn);
  if (envelopeDsnComponents === undefined || !isSameProject(envelopeDsnComponents, ownDsn)) {
    return textResponse(403, 'Envelope is not for this project');
  }

  let upstream: Response;
  try {
    upstream = await fetch(getEnvelopeEndpointWithUrlEncodedAuth(ownDsn), {
      method: 'POST',
      headers: { 'content-type': 'application/x-sentry-envelope' },
      body,
      signal: AbortSignal.timeout(options.upstreamTimeoutMs),
    });
  } catch (error) {
    const isTimeout = error instanceof DOMException && error.name === 'TimeoutError';
    return isTimeout
      ? textResponse(504, 'Sentry did not answer in time')
      : textResponse(502, 'Sentry could not be reached');
  }

  // The body is ingest's own short JSON answer (the event id); passing it keeps SDK debugging honest.
  const headers = new Headers({ 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
  for (const name of PASSED_THROUGH_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) {
      headers.set(name, value);
    }
  }
  return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers });
}
