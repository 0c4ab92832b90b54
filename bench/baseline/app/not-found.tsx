import type { Metadata } from 'next';
import { NotFoundScreen } from '@/components/not-found-screen';

export const metadata: Metadata = { title: 'Page not found' };

// The app's not-found screen, without its mark for Sentry's trace filter.
export default function NotFound() {
  return <NotFoundScreen />;
}
