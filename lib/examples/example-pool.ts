import 'server-only';
import { createPool } from 'generic-pool';

/**
 * A pool of connections as database and queue clients keep them (generic-pool, which several of
 * them use). OpenTelemetry's instrumentation for it patches the library at start-up, as a
 * product's database client would be (lib/observability/traced-packages.ts), so a traced request
 * that acquires from it shows the span. The connections are stand-ins: nothing leaves the process.
 */
const pool = createPool(
  {
    create: async () => ({ openedAt: Date.now() }),
    destroy: async () => {},
  },
  { max: 4 },
);

/** Borrows a connection for `work`, and always gives it back. */
export async function withPooledConnection<T>(work: (connection: { openedAt: number }) => Promise<T>): Promise<T> {
  const connection = await pool.acquire();
  try {
    return await work(connection);
  } finally {
    await pool.release(connection);
  }
}
