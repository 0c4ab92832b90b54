import type { Envelope, Transport } from '@sentry/core';
import { droppingNotFoundSpans } from '@/lib/observability/not-found-spans';

const span = (segment: string) => ({
  name: 'click',
  attributes: {
    'sentry.segment.name': { type: 'string', value: segment },
    'sentry.op': { type: 'string', value: 'ui.interaction.click' },
  },
});

function spanEnvelope(...segments: string[]): Envelope {
  const item = [
    { type: 'span', item_count: segments.length, content_type: 'application/vnd.sentry.items.span.v2+json' },
    { version: 2, items: segments.map((segment) => span(segment)) },
  ];
  return [{ sent_at: 'now' }, [item]] as unknown as Envelope;
}

function recording() {
  const sent: Envelope[] = [];
  const transport: Transport = {
    send: (envelope) => {
      sent.push(envelope);
      return Promise.resolve({ statusCode: 200 });
    },
    flush: () => Promise.resolve(true),
  };
  return { sent, transport };
}

describe('droppingNotFoundSpans', () => {
  it('never sends an interaction span of a page the not-found screen was shown for', async () => {
    const { sent, transport } = recording();
    await droppingNotFoundSpans(transport, new Set(['/missing'])).send(spanEnvelope('/missing'));
    expect(sent).toEqual([]);
  });

  it('sends the other spans of the item, counted anew', async () => {
    const { sent, transport } = recording();
    await droppingNotFoundSpans(transport, new Set(['/missing'])).send(spanEnvelope('/missing', '/about'));
    expect(sent).toHaveLength(1);
    const [, [[header, payload]]] = sent[0] as unknown as [unknown, [[{ item_count: number }, { items: unknown[] }]]];
    expect(header.item_count).toBe(1);
    expect(payload.items).toEqual([span('/about')]);
  });

  it('sends every other envelope as it is, spans of found pages and events alike', async () => {
    const { sent, transport } = recording();
    const filtering = droppingNotFoundSpans(transport, new Set(['/missing']));
    const found = spanEnvelope('/about');
    const event = [{}, [[{ type: 'event' }, { message: '/missing' }]]] as unknown as Envelope;
    await filtering.send(found);
    await filtering.send(event);
    expect(sent[0]).toBe(found);
    expect(sent[1]).toBe(event);
  });
});
