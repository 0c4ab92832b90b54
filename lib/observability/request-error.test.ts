import { reportRequestError } from '@/lib/observability/request-error';

const request = { path: '/api/x', method: 'GET', headers: {} };
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
    expect(capture).toHaveBeenCalledWith(error, request, context);
    expect((error as Error & { digest?: string }).digest).toMatch(/^\d+$/);
  });

  it('reports a frozen error, which cannot take a digest, rather than lose it', () => {
    const capture = vi.fn();
    const error = Object.freeze(new Error('frozen'));
    reportRequestError(capture, error, request, context);
    expect(capture).toHaveBeenCalledWith(error, request, context);
  });
});
