'use client';

import { ErrorScreen } from '@/components/error-screen';
import './globals.css';

// Replaces the root layout when the layout itself fails, so it brings its own <html> and <body>.
export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  return (
    <html lang="en">
      <head>
        <title>Something went wrong</title>
      </head>
      <body>
        <main id="main">
          <ErrorScreen error={error} />
        </main>
      </body>
    </html>
  );
}
