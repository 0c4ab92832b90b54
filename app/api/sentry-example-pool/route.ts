import { isExamplesEnabled } from '@/lib/env';
import { withPooledConnection } from '@/lib/examples/example-pool';

export const dynamic = 'force-dynamic';

/** Uses an instrumented client library (a connection pool), so a traced request shows its span. */
export async function GET(): Promise<Response> {
  if (!isExamplesEnabled) {
    return new Response('Not found', { status: 404 });
  }
  const openedAt = await withPooledConnection(async (connection) => connection.openedAt);
  return Response.json({ pooled: true, openedAt });
}
