import type { Metadata } from 'next';
import { NotFoundScreen } from '@/components/not-found-screen';
import { NotFoundTraceMark } from '@/components/not-found-trace-mark';

export const metadata: Metadata = { title: 'Page not found' };

export default function NotFound() {
  return (
    <>
      <NotFoundTraceMark />
      <NotFoundScreen />
    </>
  );
}
