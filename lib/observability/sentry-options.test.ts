import {
  Client,
  type ClientOptions,
  createStackParser,
  createTransport,
  type Envelope,
  type Event,
  type EventHint,
  eventFiltersIntegration,
  eventFromMessage,
  eventFromUnknownInput,
  parseEnvelope,
  requestDataIntegration,
  type SeverityLevel,
} from '@sentry/core';
import { sharedSentryOptions } from '@/lib/observability/sentry-options';

// The SDK's real pipeline (integrations, ignoreErrors, beforeSend*) with a transport that keeps
// what would have been sent.
class RecordingClient extends Client<ClientOptions> {
  public constructor(options: ClientOptions) {
    super(options);
  }
  eventFromException(exception: unknown, hint?: EventHint) {
    return Promise.resolve(eventFromUnknownInput(this, createStackParser(), exception, hint));
  }
  eventFromMessage(message: string, level?: SeverityLevel, hint?: EventHint) {
    return Promise.resolve(eventFromMessage(createStackParser(), message, level, hint));
  }
}

function makeClient(notFoundPaths?: ReadonlySet<string>) {
  const sent: Envelope[] = [];
  const transport = () =>
    createTransport({ recordDroppedEvent: () => undefined }, (request) => {
      sent.push(parseEnvelope(request.body as string));
      return Promise.resolve({ statusCode: 200 });
    });
  const options = sharedSentryOptions(
    {
      dsn: 'https://public@sink.invalid/1',
      environment: 'test',
      release: 'r1',
      tracesSampleRate: 1,
      spotlightUrl: undefined,
    },
    notFoundPaths,
  );
  const client = new RecordingClient({
    ...options,
    integrations: [eventFiltersIntegration(), requestDataIntegration()],
    transport,
    stackParser: createStackParser(),
    sendClientReports: false,
  });
  client.init();
  const sentItems = async () => {
    await client.flush(1_000);
    return sent.flatMap(([, items]) => items.map(([header, payload]) => ({ type: header.type, payload })));
  };
  return { client, sentItems };
}

describe('shared Sentry options', () => {
  it.each([
    'Script error.',
    'Script error',
    'ResizeObserver loop completed with undelivered notifications.',
    'ResizeObserver loop limit exceeded',
  ])('drops the noise "%s"', async (message) => {
    const { client, sentItems } = makeClient();
    client.captureException(new Error(message));
    client.captureMessage(message);
    client.captureException(new Error('a real problem'));
    const items = await sentItems();
    expect(items.map(({ payload }) => (payload as Event).exception?.values?.[0]?.value)).toEqual(['a real problem']);
  });

  it.each([
    ['the server not-found route', { transaction: 'GET /_not-found' }],
    ['the /404 page', { transaction: '/404' }],
    ['a 404 answer', { transaction: 'GET /gone', contexts: { trace: { data: { 'http.response.status_code': 404 } } } }],
    [
      'a browser page load of a path the not-found screen was shown for',
      { transaction: '/typo', contexts: { trace: { op: 'pageload', data: { 'url.path': '/typo' } } } },
    ],
    [
      'a browser navigation to a path the not-found screen was shown for',
      { transaction: '/typo', transaction_info: { source: 'url' }, contexts: { trace: { op: 'navigation' } } },
    ],
    [
      "an in-app navigation whose page data answered 404 (Next then loads the page anew, the old page's trace ends)",
      {
        transaction: '/elsewhere',
        transaction_info: { source: 'url' },
        contexts: { trace: { op: 'navigation', data: { 'url.full': 'http://app.test/elsewhere' } } },
        spans: [
          {
            op: 'http.client',
            span_id: 'a',
            trace_id: 't',
            start_timestamp: 1,
            data: { 'url.full': 'http://app.test/elsewhere?_rsc=1x2y', 'http.response.status_code': 404 },
          },
        ],
      },
    ],
    [
      "Next's module loading",
      {
        transaction: 'load route module',
        contexts: { trace: { data: { 'next.span_type': 'LoadComponents.loadRouteModule' } } },
      },
    ],
  ])('drops the trace of %s', async (_, transaction) => {
    const { client, sentItems } = makeClient(new Set(['/typo']));
    client.captureEvent({ type: 'transaction', timestamp: 2, start_timestamp: 1, ...transaction } as Event);
    client.captureEvent({ type: 'transaction', transaction: '/status', timestamp: 2, start_timestamp: 1 });
    const items = await sentItems();
    expect(items.map(({ payload }) => (payload as Event).transaction)).toEqual(['/status']);
  });

  it('keeps a navigation whose page data arrived, though a request for another path, or for its path at another origin, answered 404', async () => {
    const { client, sentItems } = makeClient();
    client.captureEvent({
      type: 'transaction',
      transaction: '/status',
      transaction_info: { source: 'url' },
      contexts: {
        trace: { op: 'navigation', span_id: 'b', trace_id: 't', data: { 'url.full': 'http://app.test/status' } },
      },
      timestamp: 2,
      start_timestamp: 1,
      spans: [
        {
          op: 'http.client',
          span_id: 'a',
          trace_id: 't',
          start_timestamp: 1,
          status: 'ok',
          data: { 'url.full': 'http://app.test/api/missing', 'http.response.status_code': 404 },
        },
        {
          op: 'http.client',
          span_id: 'c',
          trace_id: 't',
          start_timestamp: 1,
          status: 'ok',
          data: { 'url.full': 'https://api.example/status', 'http.response.status_code': 404 },
        },
      ],
    } as Event);
    const items = await sentItems();
    expect(items.map(({ payload }) => (payload as Event).transaction)).toEqual(['/status']);
  });

  it("sends a request's URL and headers without the client's address, cookies or secrets", async () => {
    const { client, sentItems } = makeClient();
    client.captureEvent({
      message: 'with a request',
      sdkProcessingMetadata: {
        ipAddress: '203.0.113.7',
        normalizedRequest: {
          method: 'GET',
          url: 'https://app.example/api/x?token=SECRET&page=2',
          query_string: 'token=SECRET&page=2',
          headers: {
            host: 'app.example',
            'user-agent': 'probe',
            'x-forwarded-for': '198.51.100.9',
            'x-real-ip': '198.51.100.9',
            cookie: 'session=SECRET',
            authorization: 'Bearer SECRET',
          },
        },
      },
    });
    const [item] = await sentItems();
    const event = item?.payload as Event;
    expect(event.user?.ip_address).toBeUndefined();
    expect(event.request?.cookies).toBeUndefined();
    expect(event.request?.headers).toEqual({
      host: 'app.example',
      'user-agent': 'probe',
      authorization: '[Filtered]',
    });
    expect(event.request?.url).toBe('https://app.example/api/x?token=[Filtered]&page=2');
    expect(JSON.stringify(event)).not.toMatch(/SECRET|198\.51|203\.0/);
  });

  it('sends traces as transactions', () => {
    const options = sharedSentryOptions({
      dsn: undefined,
      environment: undefined,
      release: undefined,
      tracesSampleRate: 0,
      spotlightUrl: undefined,
    });
    expect(options.traceLifecycle).toBe('static');
    // A rate of 0 leaves tracing off altogether, rather than sampling nothing at a cost.
    expect(options.tracesSampleRate).toBeUndefined();
  });
});
