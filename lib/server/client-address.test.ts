import { clientAddressOf } from '@/lib/server/client-address';
import { runWithClientAddress } from '@/lib/server/seam.mjs';

const headers = (values: Record<string, string>) => new Headers(values);

describe('clientAddressOf', () => {
  it('uses the socket address server.mjs recorded, not what the client claims', () => {
    const spoofed = headers({ 'x-forwarded-for': '1.2.3.4' });
    expect(runWithClientAddress('10.0.0.7', () => clientAddressOf(spoofed, false))).toBe('10.0.0.7');
  });

  it('keeps each request to its own address, across awaits', async () => {
    const addressAfterAwait = (address: string) =>
      runWithClientAddress(address, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return clientAddressOf(headers({}), false);
      });
    expect(await Promise.all([addressAfterAwait('10.0.0.1'), addressAfterAwait('10.0.0.2')])).toEqual([
      '10.0.0.1',
      '10.0.0.2',
    ]);
  });

  it('behind a trusted proxy, uses the address the proxy appended last', () => {
    const proxied = headers({ 'x-forwarded-for': '1.2.3.4, 203.0.113.9' });
    expect(runWithClientAddress('10.0.0.1', () => clientAddressOf(proxied, true))).toBe('203.0.113.9');
  });

  it('falls back to one shared key when nothing is known', () => {
    expect(clientAddressOf(headers({}), false)).toBe('unknown');
  });
});
