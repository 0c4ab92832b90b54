import type { Event, EventHint } from '@sentry/core';

/** The digest Next gives a server error: the id the error screen shows in place of the message. */
export function digestOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('digest' in error)) {
    return undefined;
  }
  const { digest } = error;
  return typeof digest === 'string' && digest !== '' ? digest : undefined;
}

/**
 * Tags an event with its error's digest, so the id a user quotes from the error screen finds the
 * event. Done in `beforeSend` rather than around `captureRequestError`: that helper forks its own
 * scope, and the event processors that run last see the original exception either way.
 */
export function tagDigest<T extends Event>(event: T, hint: EventHint): T {
  const digest = digestOf(hint.originalException);
  if (digest !== undefined) {
    event.tags = { ...event.tags, digest };
  }
  return event;
}
