import { getCurrentScope } from '@sentry/core';
import { reportRequestError, requestDataOf } from '@/lib/observability/request-error';

const request = { path: '/api/x?page=2', method: 'GET', headers: { host: 'app.example' } };
const context = {
  routerKind: 'App Router',
  routePath: '/api/x',
  routeType: 'route',
  revalidateReason: undefined,
} as const;

describe('reportRequestError', () => {
  it('gives an error without a digest one, and reports it', () => {
    const capture = vi.fn();
    const error = new Error('boom');
    reportRequestError(capture, error, request, context);
    expect(capture).toHaveBeenCalledWith(error, { ...request, path: '/api/x' }, context);
    expect((error as Error & { digest?: string }).digest).toMatch(/^\d+$/);
  });

  it('gives the event the URL and query string of the failing request, beside its method and headers', () => {
    let requestData: unknown;
    reportRequestError(
      () => {
        requestData = getCurrentScope().getScopeData().sdkProcessingMetadata.normalizedRequest;
      },
      new Error('boom'),
      request,
      context,
    );
    expect(requestData).toMatchObject({
      url: 'http://app.example/api/x?page=2',
      query_string: 'page=2',
      method: 'GET',
      headers: { host: 'app.example' },
    });
    // Only the failing request's event: nothing is left on the scope the request goes on with.
    expect(getCurrentScope().getScopeData().sdkProcessingMetadata.normalizedRequest).toBeUndefined();
  });

  it("names the host the client asked for, and a proxy's forwarded host only behind a trusted proxy", () => {
    const forwarded = {
      ...request,
      headers: { host: 'app.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    };
    expect(requestDataOf(forwarded, false).url).toBe('http://app.example/api/x?page=2');
    expect(requestDataOf(forwarded, true).url).toBe('http://evil.example/api/x?page=2');
    // The SDK's capture puts the headers it is given in the event's request data, in place of ours.
    const capture = vi.fn();
    reportRequestError(capture, new Error('boom'), forwarded, context);
    expect(capture.mock.calls[0]?.[1].headers).toEqual({ host: 'app.example' });
  });

  it('reports a frozen error, which cannot take a digest, rather than lose it', () => {
    const capture = vi.fn();
    const error = Object.freeze(new Error('frozen'));
    reportRequestError(capture, error, request, context);
    expect(capture).toHaveBeenCalledWith(error, expect.objectContaining({ method: 'GET' }), context);
  });

  it("hands the SDK's capture the path without its query, which it would copy unfiltered", () => {
    const capture = vi.fn();
    reportRequestError(capture, new Error('boom'), { ...request, path: '/api/x?token=SECRET' }, context);
    expect(capture.mock.calls[0]?.[1]).toMatchObject({ path: '/api/x' });
  });
});
