/** A minimal error envelope, as a browser SDK would post it to the tunnel. */
export function errorEnvelope(dsn: string, message: string): string {
  const eventId = crypto.randomUUID().replaceAll('-', '');
  return [
    JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify({ event_id: eventId, message, platform: 'javascript' }),
  ].join('\n');
}
