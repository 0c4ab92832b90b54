import { expect, test } from './support/fixtures';
import { BARE_APP_URL, SINK_URL } from './support/servers';
import { exceptionValue } from './support/sink';

test('a client error reaches Sentry through /monitoring and the browser never contacts ingest', async ({
  page,
  sink,
  sinkRequestsFromBrowser,
}) => {
  await page.goto('/sentry-example-page');
  const tunnelRequest = page.waitForRequest((request) => new URL(request.url()).pathname === '/monitoring');
  await page.getByRole('button', { name: 'Throw client error' }).click();

  expect((await tunnelRequest).method()).toBe('POST');
  const event = await sink.waitForErrorEvent(
    (candidate) => exceptionValue(candidate) === 'Sentry example error thrown in the browser',
  );
  expect(event.platform).toBe('javascript');
  expect(event.environment).toBe('e2e');
  expect(event.release).toBe('e2e-release');
  expect(sinkRequestsFromBrowser).toEqual([]);
});

test("a client error's event keeps its page's URL and breadcrumbs but none of their secrets", async ({
  page,
  sink,
}) => {
  // Came from a page whose link carried a secret; a first error loads the SDK, and a client-side
  // navigation with one more secret comes before a second error, so its breadcrumb is recorded.
  await page.goto('/about?session=FROMSECRET');
  await page.goto('/sentry-example-page?token=PAGESECRET&tab=1');
  await page.getByRole('button', { name: 'Throw client error' }).click();
  await sink.waitForErrorEvent((candidate) => (candidate.request?.url ?? '').includes('token='));
  await page.evaluate(() => history.pushState(null, '', '/sentry-example-page?api_key=NAVSECRET'));
  await page.getByRole('button', { name: 'Throw client error' }).click();

  const event = await sink.waitForErrorEvent(
    (candidate) =>
      exceptionValue(candidate) === 'Sentry example error thrown in the browser' &&
      (candidate.request?.url ?? '').includes('api_key='),
  );
  expect(event.request?.url).toMatch(/\/sentry-example-page\?api_key=\[Filtered\]$/);
  expect(event.request?.headers?.Referer ?? '').not.toContain('FROMSECRET');
  const navigation = (event.breadcrumbs ?? []).find((breadcrumb) => breadcrumb.category === 'navigation');
  expect(navigation?.data?.to).toBe('/sentry-example-page?api_key=[Filtered]');
  for (const sent of await sink.errorEvents()) {
    expect(JSON.stringify(sent)).not.toMatch(/FROMSECRET|PAGESECRET|NAVSECRET/);
  }
});

test('an error thrown before the page finished loading, before the SDK is fetched, is reported once', async ({
  page,
  sink,
}) => {
  // Note, from the page's first script on, what had loaded when the first uncaught error came.
  await page.addInitScript(() => {
    window.addEventListener(
      'error',
      () => {
        Object.assign(window, {
          atFirstError: { readyState: document.readyState, isSdkLoaded: '__SENTRY__' in window },
        });
      },
      { once: true },
    );
  });
  // A slow image holds the page's load event, as on a slow network.
  await page.route(
    (url) => url.pathname === '/slow-image.gif',
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await route.fulfill({ contentType: 'image/gif', body: Buffer.from('R0lGODlhAQABAAAAACw=', 'base64') });
    },
  );
  await page.route(
    (url) => url.pathname === '/sentry-example-page/early-error',
    async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace('<body>', '<body><img alt="" src="/slow-image.gif">');
      await route.fulfill({ response, body: html });
    },
  );
  await page.goto('/sentry-example-page/early-error');

  const message = 'Sentry example error thrown in the browser before the page finished loading';
  const event = await sink.waitForErrorEvent((candidate) => exceptionValue(candidate) === message);
  expect(await page.evaluate(() => (window as unknown as { atFirstError: unknown }).atFirstError)).toEqual({
    readyState: expect.not.stringMatching(/^complete$/),
    isSdkLoaded: false,
  });
  expect(event.exception?.values?.[0]?.mechanism).toMatchObject({ handled: false });

  await page.goto('/');
  await sink.waitForItem('transaction', (transaction) => transaction.transaction === '/');
  const events = await sink.errorEvents();
  expect(events.filter((candidate) => exceptionValue(candidate) === message)).toHaveLength(1);
});

test('an unhandled promise rejection is reported once', async ({ page, sink }) => {
  await page.goto('/about');
  await page.evaluate(() => {
    void Promise.reject(new Error('rejected on purpose'));
  });
  await sink.waitForErrorEvent((candidate) => exceptionValue(candidate) === 'rejected on purpose');
  await page.goto('/');
  await sink.waitForItem('transaction', (transaction) => transaction.transaction === '/');
  const events = await sink.errorEvents();
  expect(events.filter((candidate) => exceptionValue(candidate) === 'rejected on purpose')).toHaveLength(1);
});

test('a render error caught by the error boundary is reported once and shows no digest', async ({ page, sink }) => {
  await page.goto('/sentry-example-page');
  await page.getByRole('button', { name: 'Break rendering' }).click();

  await expect(page.getByText('A client-side exception occurred')).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  const isRenderError = (value: string | undefined) =>
    value === 'Sentry example error thrown while rendering in the browser';
  await sink.waitForErrorEvent((candidate) => isRenderError(exceptionValue(candidate)));

  await page.goto('/');
  await sink.waitForItem('transaction', (transaction) => transaction.transaction === '/');
  const events = await sink.errorEvents();
  expect(events.filter((candidate) => isRenderError(exceptionValue(candidate)))).toHaveLength(1);
});

// Our CSP would block the cross-origin script outright; the filter under test is for scripts a
// page does let in (a CDN, an extension's injection), so this test lifts the policy.
test.describe('with a cross-origin script allowed', () => {
  test.use({ bypassCSP: true });

  test('"Script error." and ResizeObserver notices send nothing', async ({ page, sink }) => {
    await page.goto('/about');

    await page.evaluate(() => {
      const seen: string[] = [];
      Object.assign(window, { seenErrorMessages: seen });
      window.addEventListener('error', (event) => seen.push(event.message));
    });
    // A real cross-origin script error: the browser hides its message behind "Script error.".
    await page.addScriptTag({ url: `${SINK_URL}/cross-origin-error.js` });
    await page.waitForFunction(() =>
      (window as unknown as { seenErrorMessages: string[] }).seenErrorMessages.includes('Script error.'),
    );
    await page.evaluate(async () => {
      // A real ResizeObserver loop: the callback resizes what it observes.
      const box = document.createElement('div');
      document.body.append(box);
      const loopError = new Promise<void>((resolve) =>
        window.addEventListener('error', (event) => event.message.startsWith('ResizeObserver') && resolve()),
      );
      new ResizeObserver(() => {
        box.style.width = `${box.offsetWidth + 1}px`;
      }).observe(box);
      await loopError;
      // The older Chrome text and the dot-less Script error, as the browser would deliver them.
      for (const message of ['ResizeObserver loop limit exceeded', 'Script error']) {
        window.dispatchEvent(new ErrorEvent('error', { message }));
      }
      setTimeout(() => {
        throw new Error('sentinel after the noise');
      });
    });

    await sink.waitForErrorEvent((candidate) => exceptionValue(candidate) === 'sentinel after the noise');
    const values = (await sink.errorEvents()).map((candidate) => exceptionValue(candidate) ?? candidate.message);
    expect(values).toEqual(['sentinel after the noise']);
  });
});

test('with no DSN the browser posts nothing to /monitoring', async ({ page }) => {
  const tunnelRequests: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/monitoring') {
      tunnelRequests.push(request.url());
    }
  });

  await page.goto(`${BARE_APP_URL}/`);
  await page.evaluate(() => {
    setTimeout(() => {
      throw new Error('nobody should hear this');
    });
  });
  await page.getByRole('link', { name: 'Status' }).first().click();
  await expect(page.getByTestId('reporting')).toHaveText('off');
  await page.waitForLoadState('networkidle');
  expect(tunnelRequests).toEqual([]);
});

test.describe('browser extensions', () => {
  // The page's CSP rightly refuses the inline scripts that stand in here for an extension's own.
  test.use({ bypassCSP: true });

  test('an error whose frames all come from an extension never reaches Sentry; one with an app frame among them does', async ({
    page,
    sink,
  }) => {
    await page.goto('/sentry-example-page');
    // Once loaded, the SDK wraps timer callbacks: its wrapper becomes every such stack's first frame.
    await page.waitForFunction(() => '__SENTRY__' in window);
    const extension = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
    const { origin } = new URL(page.url());
    // Scripts named as Chromium names an extension's content scripts, and one of the app's.
    const run = (source: string, url: string) => page.addScriptTag({ content: `${source}\n//# sourceURL=${url}` });
    await run(
      "window.extensionHelper = function () { throw new Error('an extension called by the app failed'); };",
      `${extension}/helper.js`,
    );
    await run(
      "setTimeout(function () { throw new Error('an extension failed on its own'); }, 0);",
      `${extension}/content.js`,
    );
    await run('setTimeout(function () { window.extensionHelper(); }, 50);', `${origin}/in-app.js`);

    const mixed = await sink.waitForErrorEvent(
      (event) => exceptionValue(event) === 'an extension called by the app failed',
    );
    // Both frames, the extension's and the app's (the SDK names both `app:///…` by then).
    const files = mixed.exception?.values?.[0]?.stacktrace?.frames
      ?.map((frame) => frame.filename)
      .filter((file) => !file?.startsWith('app:///_next/static/chunks/'));
    expect(files).toEqual(['app:///in-app.js', 'app:///helper.js']);
    // The extension's own error happened first, and would have been sent first.
    const events = await sink.errorEvents();
    expect(events.filter((event) => exceptionValue(event) === 'an extension failed on its own')).toEqual([]);
  });
});
