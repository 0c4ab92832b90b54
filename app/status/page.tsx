import type { Metadata } from 'next';
import { connection } from 'next/server';
import { CheckAgain, type CheckResult } from '@/components/check-again';
import { StatusFacts } from '@/components/status-facts';
import { getReportingStatus } from '@/lib/observability/reporting-status';
import { publicEnv } from '@/lib/public-env';

export const metadata: Metadata = { title: 'Status' };

export default async function StatusPage() {
  // Rendered per request: the time below is when this server answered.
  await connection();
  const renderedAt = new Date().toISOString();

  async function checkAgain(): Promise<CheckResult> {
    'use server';
    // `renderedAt` travels in the form, encrypted with NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: an
    // instance built with another key cannot read it.
    return {
      previousCheck: renderedAt,
      checkedAt: new Date().toISOString(),
      deploymentId: publicEnv.deploymentId ?? null,
    };
  }

  return (
    <>
      <h1>Status</h1>
      <StatusFacts renderedAt={renderedAt} status={getReportingStatus()} />
      <CheckAgain check={checkAgain} />
    </>
  );
}
