// Relative, not `@/`: next.config.ts imports this module, and its loader knows no path aliases.

import { ACTION_HEADER, actionArgumentsProblem, FORM_ACTION_CONTENT_TYPE } from '../framework-internals.mjs';
import { mediaTypeOf } from '../server/media-type';
import { textResponse } from '../server/text-response';
import { actionFormData } from './action-form-data';

/** Next's default limit for a server action's body, set explicitly in next.config.ts from here. */
export const ACTION_BODY_LIMIT_BYTES = 1024 * 1024;

// What React's client sends: JSON-encoded arguments as text/plain, FormData as multipart.
const ACTION_CONTENT_TYPES = new Set(['text/plain', FORM_ACTION_CONTENT_TYPE]);

/**
 * Refuses a hostile server-action request with a 4xx before Next's action handler sees it: that
 * handler answers each of these with a 500 and an error event, so anyone could burn the error
 * budget. A server action comes from React's client, its id in a header, or from a form posted
 * before hydration: a multipart POST, which Next takes as one whatever it holds, the action named
 * in its fields. Returns undefined for a request that may go on.
 */
export async function refuseBadActionRequest(request: Request): Promise<Response | undefined> {
  if (request.method !== 'POST') {
    return undefined;
  }
  const isFormPost = !request.headers.has(ACTION_HEADER);
  const origin = request.headers.get('origin');
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  if (origin !== null && URL.parse(origin)?.host !== host) {
    return textResponse(403, 'Server actions are accepted from this site only');
  }
  if (Number(request.headers.get('content-length') ?? 0) > ACTION_BODY_LIMIT_BYTES) {
    return textResponse(413, `Server action bodies are limited to ${ACTION_BODY_LIMIT_BYTES} bytes`);
  }
  if (request.headers.get('content-encoding') !== null) {
    return textResponse(415, 'Compressed server action bodies are not accepted');
  }
  const contentType = mediaTypeOf(request.headers);
  if (!ACTION_CONTENT_TYPES.has(contentType)) {
    return textResponse(415, 'A server action takes text/plain or multipart/form-data');
  }
  // A body without Content-Length (chunked) is checked once read; Next hands the proxy at most
  // `proxyClientMaxBodySize` (10 MB) of it, so this read is bounded too.
  let body: ArrayBuffer;
  try {
    body = await request.clone().arrayBuffer();
  } catch {
    // The client went away mid-body, or Node's request timeout cut it: nothing for Next to run.
    return textResponse(400, 'The server action body did not arrive');
  }
  if (body.byteLength > ACTION_BODY_LIMIT_BYTES) {
    return textResponse(413, `Server action bodies are limited to ${ACTION_BODY_LIMIT_BYTES} bytes`);
  }
  let args: string | FormData;
  const fullType = request.headers.get('content-type') ?? '';
  try {
    // The BOM kept, as Next reads the body: JSON with one in front is not JSON. A multipart body is
    // read as Next reads it: a form's with `Response.formData()`, React's client's with busboy.
    if (contentType === 'text/plain') {
      args = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } else if (isFormPost) {
      args = await new Response(body, { headers: { 'content-type': fullType } }).formData();
    } else {
      args = await actionFormData(body, fullType, ACTION_BODY_LIMIT_BYTES);
    }
  } catch {
    return textResponse(400, 'Malformed server action arguments');
  }
  // A form's fields are the form's, not React's encoding of an argument list: Next finds the action
  // among them, and answers what it cannot find with a 4xx of its own.
  if (isFormPost) return undefined;
  const problem = actionArgumentsProblem(args);
  return problem === undefined ? undefined : textResponse(400, `Malformed server action arguments: ${problem}`);
}
