import type { Metadata } from 'next';
import { connection } from 'next/server';
import { StatusFacts } from '@/components/status-facts';

export const metadata: Metadata = { title: 'Status' };

export default async function StatusPage() {
  await connection();
  return (
    <>
      <h1>Status</h1>
      <StatusFacts
        renderedAt={new Date().toISOString()}
        status={{
          deploymentId: undefined,
          release: undefined,
          environment: 'production',
          isReportingOn: false,
          isTunnelOn: false,
          tracesSampleRate: 0,
        }}
      />
    </>
  );
}
