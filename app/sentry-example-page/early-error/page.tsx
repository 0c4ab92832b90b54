import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { EarlyError } from '@/components/early-error';
import { isExamplesEnabled } from '@/lib/env';

export const metadata: Metadata = { title: 'Early browser error', robots: { index: false } };

export default async function EarlyErrorExamplePage() {
  await connection();
  if (!isExamplesEnabled) {
    notFound();
  }
  return (
    <>
      <h1>Early browser error</h1>
      <EarlyError />
    </>
  );
}
