'use client';

import Link from 'next/link';
import { useState, useTransition } from 'react';
import { SentryExampleError } from '@/lib/examples/errors';
import { runFailingServerAction } from '@/lib/examples/failing-action';

function BrokenWidget(): never {
  throw new SentryExampleError('while rendering in the browser');
}

export function SentryExamples() {
  const [apiAnswer, setApiAnswer] = useState<string>();
  const [isBroken, setIsBroken] = useState(false);
  const [isPending, startTransition] = useTransition();

  async function callFailingApi() {
    setApiAnswer('Calling…');
    const response = await fetch('/api/sentry-example-api');
    setApiAnswer(`The API route answered ${response.status}.`);
  }

  return (
    <>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            throw new SentryExampleError('in the browser');
          }}
        >
          Throw client error
        </button>
        <button type="button" onClick={callFailingApi}>
          Call failing API route
        </button>
        <button
          type="button"
          disabled={isPending}
          // Inside a transition the action's error reaches the error boundary, which shows its digest.
          onClick={() => startTransition(() => runFailingServerAction())}
        >
          Run failing server action
        </button>
        <button type="button" onClick={() => setIsBroken(true)}>
          Break rendering
        </button>
        <Link href="/sentry-example-page/server-error">Render server error</Link>
      </div>
      {isBroken && <BrokenWidget />}
      <p role="status" data-testid="api-answer">
        {apiAnswer}
      </p>
    </>
  );
}
