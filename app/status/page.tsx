import type { Metadata } from 'next';
import { connection } from 'next/server';
import { StatusFacts } from '@/components/status-facts';
import { getReportingStatus } from '@/lib/observability/reporting-status';

export const metadata: Metadata = { title: 'Status' };

export default async function StatusPage() {
  // Rendered per request: the time below is when this server answered.
  await connection();
  return (
    <>
      <h1>Status</h1>
      <StatusFacts renderedAt={new Date().toISOString()} status={getReportingStatus()} />
    </>
  );
}
