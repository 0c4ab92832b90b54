import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { SentryExamples } from '@/components/sentry-examples';
import { isExamplesEnabled } from '@/lib/env';

export const metadata: Metadata = { title: 'Sentry examples', robots: { index: false } };

export default async function SentryExamplePage() {
  // ENABLE_SENTRY_EXAMPLES is read at run time, so this page cannot be prerendered.
  await connection();
  if (!isExamplesEnabled) {
    notFound();
  }
  return (
    <>
      <h1>Sentry examples</h1>
      <p>Each control below fails on purpose, so you can see the error arrive in Sentry (or Spotlight).</p>
      <SentryExamples />
    </>
  );
}
