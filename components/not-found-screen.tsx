import Link from 'next/link';

export function NotFoundScreen() {
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the link that brought you here may be wrong.</p>
      <p>
        <Link href="/">Go to the home page</Link>
      </p>
    </section>
  );
}
