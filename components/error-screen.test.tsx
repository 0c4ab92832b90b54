// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { ErrorScreen } from '@/components/error-screen';
import { reportBoundaryError } from '@/lib/observability/browser-sdk';

vi.mock('@/lib/observability/browser-sdk', () => ({ reportBoundaryError: vi.fn() }));

afterEach(cleanup);

describe('ErrorScreen', () => {
  it('shows the digest of a server error and does not report it again', () => {
    const error = Object.assign(new Error('secret server detail'), { digest: '2718281828' });
    render(<ErrorScreen error={error} />);
    expect(screen.getByText(/server-side exception/)).toBeTruthy();
    expect(screen.getByTestId('error-digest').textContent).toBe('2718281828');
    expect(screen.queryByText(/secret server detail/)).toBeNull();
    expect(reportBoundaryError).not.toHaveBeenCalled();
  });

  it('reports a client error once and shows no digest or message', () => {
    const error = new Error('client detail');
    render(<ErrorScreen error={error} />);
    expect(screen.getByText(/client-side exception/)).toBeTruthy();
    expect(screen.queryByTestId('error-digest')).toBeNull();
    expect(screen.queryByText(/client detail/)).toBeNull();
    expect(reportBoundaryError).toHaveBeenCalledTimes(1);
    expect(vi.mocked(reportBoundaryError).mock.calls[0]?.[0]).toBe(error);
  });

  it('offers a retry only when there is something to retry', () => {
    const onRetry = vi.fn();
    const { rerender } = render(<ErrorScreen error={new Error('x')} />);
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    rerender(<ErrorScreen error={new Error('x')} onRetry={onRetry} />);
    screen.getByRole('button', { name: 'Try again' }).click();
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
  });
});
