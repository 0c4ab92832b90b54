import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SiteHeader } from '@/components/site-header';
import '@/app/globals.css';

export const metadata: Metadata = {
  title: { default: 'Shell', template: '%s · Shell' },
  description: 'A server-rendered Next.js shell with error reporting through Sentry.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <SiteHeader />
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
