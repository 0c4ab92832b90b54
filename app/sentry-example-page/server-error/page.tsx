import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { isExamplesEnabled } from '@/lib/env';
import { SentryExampleError } from '@/lib/examples/errors';

export default async function ServerErrorExamplePage() {
  await connection();
  if (!isExamplesEnabled) {
    notFound();
  }
  throw new SentryExampleError('while rendering a server component');
}
