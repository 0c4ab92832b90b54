import type { Event } from '@sentry/core';
import { isNextStartUpSpan } from '@/lib/framework-internals.mjs';

// Noise that carries nothing actionable. The SDK's defaults cover "Script error." and the current
// ResizeObserver text; the older Chrome text and the dot-less Script error are added here so the
// list is complete on its own.
export const ignoredErrors: RegExp[] = [
  /^Script error\.?$/,
  /^Javascript error: Script error\.? on line 0$/,
  /^ResizeObserver loop completed with undelivered notifications\.?$/,
  /^ResizeObserver loop limit exceeded\.?$/,
];

const notFoundTransactionName = /^(?:[A-Z]+ )?\/(?:404|_not-found)$/;

/**
 * A trace that is not a request: Next's own start-up work (loading instrumentation and route
 * modules) opens root spans of its own, which would bury the real traces.
 */
export function isNextInternalTrace(event: Event): boolean {
  return isNextStartUpSpan(event.contexts?.trace?.data);
}

const NO_PATHS: ReadonlySet<string> = new Set();

/** The path a browser page-load or navigation trace is about. */
function browserTracePath(event: Event): string | undefined {
  const path = event.contexts?.trace?.data?.['url.path'];
  if (typeof path === 'string') return path;
  return event.transaction_info?.source === 'url' ? event.transaction : undefined;
}

/**
 * A trace of a not-found page: by Next's route name, a 404 answer, or, in the browser, which cannot
 * tell a 404 by the trace's name (for an unknown URL it is just the URL), a path the not-found
 * screen was shown for, or whose own request answered 404.
 */
export function isNotFoundTrace(event: Event, notFoundPaths: ReadonlySet<string> = NO_PATHS): boolean {
  if (event.transaction !== undefined && notFoundTransactionName.test(event.transaction)) {
    return true;
  }
  if (event.contexts?.trace?.data?.['http.response.status_code'] === 404) {
    return true;
  }
  const path = browserTracePath(event);
  return path !== undefined && (notFoundPaths.has(path) || isPathAnswered404(event, path));
}

/** `url` read against `base`, or undefined; `URL.parse` is newer than the browsers Next supports. */
function parsedUrl(url: unknown, base?: string): URL | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url, base);
  } catch {
    return undefined;
  }
}

/**
 * Whether a browser trace's own request for its page answered 404. An in-app navigation to an
 * unknown URL fetches the page's data, gets a 404, and Next loads the URL anew: the not-found screen
 * shows in the new document, too late to mark the path for the old one's trace. The same path on
 * another origin (an API's 404) is not the page's.
 */
function isPathAnswered404(event: Event, path: string): boolean {
  const page = parsedUrl(event.contexts?.trace?.data?.['url.full'] ?? event.request?.url);
  if (page === undefined) return false;
  return (event.spans ?? []).some((span) => {
    if (span.op !== 'http.client' || span.data?.['http.response.status_code'] !== 404) return false;
    // The browser SDK writes `url.full`; before version 10, `url`.
    const url = parsedUrl(span.data['url.full'] ?? span.data.url, page.href);
    return url?.origin === page.origin && url.pathname === path;
  });
}

const EXTENSION_URL = /^(?:chrome|moz|safari|safari-web)-extension:\/\//;
const EXTENSION_URL_ANYWHERE = /\b(?:chrome|moz|safari|safari-web)-extension:\/\//;
// The file of each frame of a stack as browsers write it: `at f (url:1:2)`, `f@url:1:2`.
const STACK_FILE = /\b([a-z][\w+.-]*:\/\/[^\s()]+?):\d+:\d+/gi;

/** The files an error's own stack names, as the browser wrote them. */
function stackFiles(error: unknown): string[] {
  const stack = error instanceof Error ? error.stack : undefined;
  return stack ? [...stack.matchAll(STACK_FILE)].map(([, file]) => file ?? '') : [];
}

// How the SDK marks an error it caught in its own wrapper of a browser API (timers, event
// listeners, animation frames): that wrapper, in the app's bundle, is the stack's outermost frame.
const SDK_WRAPPER_MECHANISM = /^auto\.browser\.browserapierrors\./;

/**
 * An error that browser extensions threw, not the app: every frame that names a file names an
 * extension's, or, with no frames at all, its message names one. One frame of the app's among
 * them keeps the event: the app called into the extension, or the extension into the app. The
 * error's own stack is read first: the SDK rewrites frame URLs (`app:///…`) before `beforeSend`.
 * When the SDK caught the error in its wrapper, the wrapper's frame is not the app's; the SDK's
 * own check for it reads a function name the minifier has changed.
 */
export function isBrowserExtensionError(event: Event, originalError?: unknown): boolean {
  const values = event.exception?.values ?? [];
  const eventFiles = values
    .flatMap((value) => value.stacktrace?.frames ?? [])
    .flatMap((frame) => {
      const file = frame.abs_path ?? frame.filename;
      return file && file !== '<anonymous>' ? [file] : [];
    });
  const isCaughtInSdkWrapper = values.some((value) => SDK_WRAPPER_MECHANISM.test(value.mechanism?.type ?? ''));
  // Innermost first, as browsers write it.
  const fromStack = stackFiles(originalError).slice(0, isCaughtInSdkWrapper ? -1 : undefined);
  const files = fromStack.length > 0 ? fromStack : eventFiles;
  if (files.length > 0) return files.every((file) => EXTENSION_URL.test(file));
  const text = [event.message, ...values.map((value) => value.value)].join(' ');
  return EXTENSION_URL_ANYWHERE.test(text);
}
