import { expect } from '@playwright/test';
import type { Event } from '@sentry/core';
import { SINK_URL } from './servers';

export type ReceivedItem = { header: { type?: string } & Record<string, unknown>; payload: unknown };
export type ReceivedEnvelope = {
  project: string;
  userAgent: string;
  /** Which of the sink's connections it came on, numbered from 1 as they were opened. */
  connection: number;
  header: Record<string, unknown>;
  items: ReceivedItem[];
};

/** What the local ingest received, decoded by @sentry/core's parseEnvelope in the sink. */
export class EnvelopeSink {
  /** `url`: a sink of a test's own (scripts/envelope-sink.mjs), not the browser tests' shared one. */
  constructor(private readonly url = SINK_URL) {}

  async clear(): Promise<void> {
    const response = await fetch(`${this.url}/__sink/envelopes`, { method: 'DELETE' });
    expect(response.ok).toBe(true);
  }

  /** Makes ingest answer `status` (503: down), or answer only after `delayMs`; no argument: healthy. */
  async setMode(mode: { status?: number; delayMs?: number } = {}): Promise<void> {
    const response = await fetch(`${this.url}/__sink/mode`, { method: 'PUT', body: JSON.stringify(mode) });
    expect(response.ok).toBe(true);
  }

  /** How many envelopes holding an error ingest refused while it was down, since the sink started. */
  async refusedErrors(): Promise<number> {
    const response = await fetch(`${this.url}/__sink/refused-errors`);
    return ((await response.json()) as { refusedErrors: number }).refusedErrors;
  }

  async envelopes(): Promise<ReceivedEnvelope[]> {
    const response = await fetch(`${this.url}/__sink/envelopes`);
    return (await response.json()) as ReceivedEnvelope[];
  }

  /** Payloads of every item of the given type (`event`, `transaction`, `span`, ...). */
  async items<T = Event>(type: string): Promise<T[]> {
    const envelopes = await this.envelopes();
    return envelopes.flatMap((envelope) =>
      envelope.items.filter((item) => item.header.type === type).map((item) => item.payload as T),
    );
  }

  async errorEvents(): Promise<Event[]> {
    return this.items<Event>('event');
  }

  /** Waits until an error event matching `predicate` has arrived, and returns it. */
  waitForErrorEvent(predicate: (event: Event) => boolean, timeout?: number): Promise<Event> {
    return this.waitForItem<Event>('event', predicate, timeout);
  }

  /** Waits for the browser's page-load transaction of `path`. */
  waitForPageload(path: string, timeout?: number): Promise<Event> {
    return this.waitForItem<Event>(
      'transaction',
      (transaction) => transaction.contexts?.trace?.op === 'pageload' && transaction.transaction === path,
      timeout,
    );
  }

  /** Waits for the transaction named `name` in the trace `traceId`. */
  waitForTransactionInTrace(name: string, traceId: string | undefined): Promise<Event> {
    return this.waitForItem<Event>(
      'transaction',
      (transaction) => transaction.transaction === name && transaction.contexts?.trace?.trace_id === traceId,
    );
  }

  /** Waits until an item of `type` matching `predicate` has arrived, and returns it. */
  async waitForItem<T = Event>(type: string, predicate: (payload: T) => boolean, timeout = 15_000): Promise<T> {
    let found: T | undefined;
    await expect
      .poll(
        async () => {
          found = (await this.items<T>(type)).find(predicate);
          return found !== undefined;
        },
        { timeout, message: `waiting for a ${type} item at the sink` },
      )
      .toBe(true);
    return found as T;
  }
}

export function exceptionValue(event: Event): string | undefined {
  return event.exception?.values?.[0]?.value;
}

/** The `?label=` of the example API route's error, when `event` is that error. */
export function exampleApiErrorLabel(event: Event): string | undefined {
  return /^Sentry example error thrown by an API route \(label (.+)\)$/.exec(exceptionValue(event) ?? '')?.[1];
}
