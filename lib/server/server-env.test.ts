import { readServerEnv } from '@/lib/server/server-env.mjs';

describe('readServerEnv', () => {
  it('reads blank as unset and trims what is set, as lib/env.ts does', () => {
    expect(readServerEnv({ PORT: '', HOSTNAME: ' ', SHUTDOWN_DRAIN_DELAY_MS: '', NEXT_DIST_DIR: '' })).toEqual({
      port: 3000,
      hostname: '0.0.0.0',
      drainDelayMs: 0,
      distDir: '.next',
    });
    expect(
      readServerEnv({
        PORT: ' 3001 ',
        HOSTNAME: '127.0.0.1',
        SHUTDOWN_DRAIN_DELAY_MS: '500',
        NEXT_DIST_DIR: ' .next-bare ',
      }),
    ).toEqual({ port: 3001, hostname: '127.0.0.1', drainDelayMs: 500, distDir: '.next-bare' });
  });

  it.each([
    ['PORT', 'abc', 'PORT: must be a whole number from 0 to 65535'],
    ['PORT', '70000', 'PORT: must be a whole number from 0 to 65535'],
    ['PORT', '1e3', 'PORT: must be a whole number from 0 to 65535'],
    ['SHUTDOWN_DRAIN_DELAY_MS', '1e3', 'SHUTDOWN_DRAIN_DELAY_MS: must be a whole number of milliseconds'],
    ['SHUTDOWN_DRAIN_DELAY_MS', '0x10', 'SHUTDOWN_DRAIN_DELAY_MS: must be a whole number of milliseconds'],
    ['SHUTDOWN_DRAIN_DELAY_MS', '-1', 'SHUTDOWN_DRAIN_DELAY_MS: must be a whole number of milliseconds'],
    ['NEXT_DIST_DIR', '../elsewhere', 'NEXT_DIST_DIR: must be a folder name starting with ".next"'],
  ])('refuses %s=%s, naming it', (name, value, message) => {
    expect(() => readServerEnv({ [name]: value })).toThrow(message);
  });

  it('names every bad variable at once', () => {
    expect(() => readServerEnv({ PORT: 'x', SHUTDOWN_DRAIN_DELAY_MS: 'y' })).toThrow(
      /PORT: .*\n.*SHUTDOWN_DRAIN_DELAY_MS: /,
    );
  });
});
