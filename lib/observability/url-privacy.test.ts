import type { Breadcrumb, Event } from '@sentry/core';
import { withFilteredBreadcrumbUrls, withFilteredUrls } from '@/lib/observability/url-privacy';

describe('url privacy', () => {
  it("filters the secrets of an event's page URL and Referer, keeping the rest of each", () => {
    const event: Event = {
      request: {
        url: 'https://app.example/reset?token=SECRET&step=2',
        headers: { Referer: 'https://app.example/login?password=SECRET', 'user-agent': 'probe' },
      },
    };
    withFilteredUrls(event);
    expect(event.request?.url).toBe('https://app.example/reset?token=[Filtered]&step=2');
    expect(event.request?.headers).toEqual({
      Referer: 'https://app.example/login?password=[Filtered]',
      'user-agent': 'probe',
    });
  });

  it("filters the secrets of a navigation's from and to and of a request's url", () => {
    const navigation: Breadcrumb = { category: 'navigation', data: { from: '/a?session=S1', to: '/b?api_key=K&x=1' } };
    const request: Breadcrumb = { category: 'fetch', data: { url: '/api/x?auth=A', method: 'GET' } };
    expect(withFilteredBreadcrumbUrls(navigation).data).toEqual({
      from: '/a?session=[Filtered]',
      to: '/b?api_key=[Filtered]&x=1',
    });
    expect(withFilteredBreadcrumbUrls(request).data).toEqual({ url: '/api/x?auth=[Filtered]', method: 'GET' });
  });

  it('leaves an event without URLs as it is', () => {
    expect(withFilteredUrls({ message: 'plain' })).toEqual({ message: 'plain' });
  });
});
