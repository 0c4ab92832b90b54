'use client';

// The app's error screen without its report to Sentry.
export default function SegmentError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <section className="error-screen" aria-labelledby="error-title">
      <h1 id="error-title">Something went wrong</h1>
      {error.digest !== undefined && (
        <p>
          If you contact support, quote this reference: <code>{error.digest}</code>
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={reset}>
          Try again
        </button>
        <a href="/">Go to the home page</a>
      </div>
    </section>
  );
}
