/** A refusal or failure a client can read: the status, and the reason in plain text. */
export function textResponse(status: number, reason: string, headers: Record<string, string> = {}): Response {
  return new Response(reason, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}
