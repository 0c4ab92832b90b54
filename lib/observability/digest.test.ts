import type { Event } from '@sentry/core';
import { digestOf, tagDigest } from '@/lib/observability/digest';

describe('digest tagging', () => {
  it('tags an event with the digest of its original exception', () => {
    const error = Object.assign(new Error('boom'), { digest: '1234567890' });
    const event = tagDigest({ tags: { turbopack: true } }, { originalException: error });
    expect(event.tags).toEqual({ turbopack: true, digest: '1234567890' });
  });

  it('leaves an event without a digest untouched', () => {
    expect(tagDigest<Event>({}, { originalException: new Error('boom') }).tags).toBeUndefined();
    expect(tagDigest<Event>({}, {}).tags).toBeUndefined();
  });

  it('reads only non-empty string digests', () => {
    expect(digestOf({ digest: '' })).toBeUndefined();
    expect(digestOf({ digest: 42 })).toBeUndefined();
    expect(digestOf(null)).toBeUndefined();
    expect(digestOf('NEXT_NOT_FOUND')).toBeUndefined();
  });
});
