'use client';

import { useEffect } from 'react';
import { reportBoundaryError } from '@/lib/observability/browser-sdk';
import { digestOf } from '@/lib/observability/digest';

export type ErrorScreenProps = {
  error: Error & { digest?: string };
  /** Re-renders the failed segment; absent where nothing can be retried. */
  onRetry?: () => void;
};

/**
 * The one application-error screen. A server error reaches the browser with only its digest (Next
 * strips the message) and was already reported by the server, so only client errors are reported
 * here; both show no message or stack, and a digest when there is one.
 */
export function ErrorScreen({ error, onRetry }: ErrorScreenProps) {
  const digest = digestOf(error);

  useEffect(() => {
    if (digest === undefined) {
      reportBoundaryError(error);
    }
  }, [error, digest]);

  return (
    <section className="error-screen" aria-labelledby="error-title">
      <h1 id="error-title">Something went wrong</h1>
      <p>
        {digest === undefined
          ? 'A client-side exception occurred in your browser.'
          : 'A server-side exception occurred while preparing this page.'}
      </p>
      {digest !== undefined && (
        <p>
          If you contact support, quote this reference: <code data-testid="error-digest">{digest}</code>
        </p>
      )}
      <div className="actions">
        {onRetry && (
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        )}
        {/* A plain link, not next/link: after a crash a full page load is the reliable way back. */}
        <a href="/">Go to the home page</a>
      </div>
    </section>
  );
}
