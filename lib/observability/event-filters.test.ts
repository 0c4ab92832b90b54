import type { Event } from '@sentry/core';
import { browserSentryOptions } from '@/lib/observability/browser-options';
import { isBrowserExtensionError } from '@/lib/observability/event-filters';

function errorWithFrames(...files: string[]): Event {
  return {
    exception: {
      values: [
        { type: 'TypeError', value: 'x is undefined', stacktrace: { frames: files.map((filename) => ({ filename })) } },
      ],
    },
  };
}

describe('isBrowserExtensionError', () => {
  it.each([
    'chrome-extension://abcdefghijklmnop/content.js',
    'moz-extension://1234-5678/background.js',
    'safari-extension://com.example.ext/script.js',
    'safari-web-extension://ABCD-1234/inject.js',
  ])('drops an error whose frames all come from an extension (%s)', (file) => {
    expect(isBrowserExtensionError(errorWithFrames(file, file, '<anonymous>'))).toBe(true);
  });

  it('keeps an error with one frame of the app among extension frames', () => {
    const mixed = errorWithFrames(
      'chrome-extension://abcdefghijklmnop/content.js',
      'http://localhost:3000/_next/static/chunks/app.js',
      'chrome-extension://abcdefghijklmnop/content.js',
    );
    expect(isBrowserExtensionError(mixed)).toBe(false);
  });

  it('reads the error’s own stack, whose URLs the SDK has not yet rewritten', () => {
    const rewritten = errorWithFrames('app:///content.js');
    const fromExtension = Object.assign(new Error('x'), {
      stack:
        'Error: x\n    at run (chrome-extension://abcdefghijklmnop/content.js:1:46)\n    at moz-extension://1/b.js:2:3',
    });
    const fromApp = Object.assign(new Error('x'), {
      stack:
        'Error: x\n    at run (chrome-extension://abcdefghijklmnop/content.js:1:46)\n    at go (http://localhost:3000/app.js:9:1)',
    });
    expect(isBrowserExtensionError(rewritten, fromExtension)).toBe(true);
    expect(isBrowserExtensionError(rewritten, fromApp)).toBe(false);
  });

  it('does not count the SDK’s own wrapper of a timer, the outermost frame, as the app’s', () => {
    const fromExtension = new Error('an extension failed on its own');
    fromExtension.stack = [
      'Error: an extension failed on its own',
      '    at chrome-extension://abcdefghijklmnop/content.js:1:20',
      '    at n (https://app.example/_next/static/chunks/0abc.js:15:4985)',
    ].join('\n');
    const caughtBySdk: Event = {
      exception: {
        values: [
          {
            value: 'an extension failed on its own',
            mechanism: { type: 'auto.browser.browserapierrors.setTimeout', handled: false },
            stacktrace: {
              frames: [{ filename: 'app:///_next/static/chunks/0abc.js' }, { filename: 'app:///content.js' }],
            },
          },
        ],
      },
    };
    expect(isBrowserExtensionError(caughtBySdk, fromExtension)).toBe(true);
    // Caught anywhere else, the same outermost frame is the app's.
    const caughtByHandler = structuredClone(caughtBySdk);
    (caughtByHandler.exception?.values?.[0] ?? {}).mechanism = {
      type: 'auto.browser.global_handlers.onerror',
      handled: false,
    };
    expect(isBrowserExtensionError(caughtByHandler, fromExtension)).toBe(false);
  });

  it('drops an error with no frames whose message names an extension, and keeps one that names none', () => {
    expect(isBrowserExtensionError({ message: 'Failed to load chrome-extension://abc/x.js' })).toBe(true);
    expect(isBrowserExtensionError({ exception: { values: [{ value: 'Extension context invalidated.' }] } })).toBe(
      false,
    );
    expect(isBrowserExtensionError({ message: 'Something failed' })).toBe(false);
  });
});

describe('the browser init', () => {
  const beforeSendOf = () =>
    browserSentryOptions(
      {
        dsn: 'https://k@o1.ingest.sentry.io/1',
        environment: 't',
        release: 'r',
        tracesSampleRate: 0,
        spotlightUrl: undefined,
      },
      new Set(),
    )?.beforeSend;

  it('drops a server error the browser meets again, which the server reported with its digest', () => {
    const beforeSend = beforeSendOf();
    const app = errorWithFrames('http://localhost:3000/_next/static/chunks/app.js');
    // What React's client throws for a server render that failed inside a Suspense boundary.
    const recovered = Object.assign(new Error('Minified React error #419'), { digest: '1234567890' });
    expect(beforeSend?.(app as never, { originalException: recovered })).toBeNull();
    expect(beforeSend?.(app as never, { originalException: new Error('a client error') })).toBe(app);
  });

  it('drops extension errors before they are sent, and sends the app’s', () => {
    const beforeSend = beforeSendOf();
    const app = errorWithFrames('http://localhost:3000/_next/static/chunks/app.js');
    expect(beforeSend?.(errorWithFrames('moz-extension://1/a.js') as never, {})).toBeNull();
    expect(beforeSend?.(app as never, {})).toBe(app);
  });
});
