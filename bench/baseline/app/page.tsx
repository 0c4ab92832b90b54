import Link from 'next/link';

export default function HomePage() {
  return (
    <>
      <h1>Shell</h1>
      <p>
        A server-rendered Next.js application shell whose errors, in the browser and on the server, reach Sentry through
        the app&apos;s own tunnel.
      </p>
      <p className="muted">The product&apos;s own screens are not specified yet; the routes below are placeholders.</p>
      <ul>
        <li>
          <Link href="/about">About</Link>: a static placeholder page.
        </li>
        <li>
          <Link href="/status">Status</Link>: when the page was rendered, the deployment and whether error reporting is
          on.
        </li>
      </ul>
    </>
  );
}
