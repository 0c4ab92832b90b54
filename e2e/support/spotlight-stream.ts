import { expect } from '@playwright/test';
import type { Event } from '@sentry/core';

type StreamedItem = [{ type?: string } & Record<string, unknown>, unknown];
type StreamedEnvelope = [Record<string, unknown>, StreamedItem[]];

/**
 * What Spotlight's sidecar relays, read from its own event stream (`GET /stream`, server-sent
 * events whose data is the envelope as JSON: `[header, [[itemHeader, payload], ...]]`). It relays
 * the app's console output too, as `log` items; the SDKs' errors arrive as `event` items.
 */
export class SpotlightStream {
  private readonly envelopes: StreamedEnvelope[] = [];

  private constructor(private readonly controller: AbortController) {}

  /** Subscribes to the sidecar at `url` (for example http://localhost:8969). */
  static async connect(url: string): Promise<SpotlightStream> {
    const controller = new AbortController();
    const response = await fetch(`${url}/stream`, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(response.status, 'Spotlight sidecar stream').toBe(200);
    const stream = new SpotlightStream(controller);
    void stream.read(response);
    return stream;
  }

  private async read(response: Response): Promise<void> {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of response.body) {
        buffered += decoder.decode(chunk, { stream: true });
        const messages = buffered.split('\n\n');
        buffered = messages.pop() ?? '';
        for (const message of messages) this.receive(message);
      }
    } catch {
      // Closed, or the sidecar went away: what arrived until then stays readable.
    }
  }

  private receive(message: string): void {
    const data = message
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice('data:'.length).trimStart())
      .join('\n');
    if (data === '') return;
    try {
      this.envelopes.push(JSON.parse(data) as StreamedEnvelope);
    } catch {
      // Not an envelope (a keep-alive comment, a partial write): the stream goes on.
    }
  }

  /** Every error event relayed so far. */
  errorEvents(): Event[] {
    return this.envelopes.flatMap(([, items]) =>
      items.filter(([header]) => header.type === 'event').map(([, payload]) => payload as Event),
    );
  }

  /** Waits until an error event matching `predicate` has been relayed, and returns it. */
  async waitForErrorEvent(predicate: (event: Event) => boolean, timeout = 30_000): Promise<Event> {
    let found: Event | undefined;
    await expect
      .poll(
        () => {
          found = this.errorEvents().find(predicate);
          return found !== undefined;
        },
        { timeout, message: 'waiting for an error event in Spotlight' },
      )
      .toBe(true);
    return found as Event;
  }

  close(): void {
    this.controller.abort();
  }
}
