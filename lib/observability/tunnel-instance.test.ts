import { clientAddressOf } from '@/lib/observability/tunnel-instance';

function request(headers: Record<string, string>): Request {
  return new Request('http://app.test/monitoring', { method: 'POST', headers });
}

describe('clientAddressOf', () => {
  it('uses the socket address server.mjs recorded, not what the client claims', () => {
    const spoofed = request({ 'x-client-socket-address': '10.0.0.7', 'x-forwarded-for': '1.2.3.4' });
    expect(clientAddressOf(spoofed, false)).toBe('10.0.0.7');
  });

  it('behind a trusted proxy, uses the address the proxy appended last', () => {
    const proxied = request({ 'x-client-socket-address': '10.0.0.1', 'x-forwarded-for': '1.2.3.4, 203.0.113.9' });
    expect(clientAddressOf(proxied, true)).toBe('203.0.113.9');
  });

  it('falls back to one shared key when nothing is known', () => {
    expect(clientAddressOf(request({}), false)).toBe('unknown');
  });
});
