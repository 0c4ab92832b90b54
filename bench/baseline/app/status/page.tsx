import type { Metadata } from 'next';
import { connection } from 'next/server';
import { CheckAgain, type CheckResult } from '@/components/check-again';
import { StatusFacts } from '@/components/status-facts';

export const metadata: Metadata = { title: 'Status' };

export default async function StatusPage() {
  await connection();
  const renderedAt = new Date().toISOString();

  // The app's action, which has nothing of Sentry: its encrypted closure is part of the page's cost.
  async function checkAgain(): Promise<CheckResult> {
    'use server';
    return { previousCheck: renderedAt, checkedAt: new Date().toISOString(), deploymentId: null };
  }

  return (
    <>
      <h1>Status</h1>
      <StatusFacts
        renderedAt={renderedAt}
        status={{
          deploymentId: undefined,
          release: undefined,
          environment: 'production',
          isReportingOn: false,
          isTunnelOn: false,
          isSpotlightOn: false,
          tracesSampleRate: 0,
        }}
      />
      <CheckAgain check={checkAgain} />
    </>
  );
}
