import { parseEnv } from '@/lib/env';

describe('parseEnv', () => {
  it('accepts an empty environment and applies the defaults', () => {
    const env = parseEnv({});
    expect(env.NEXT_PUBLIC_SENTRY_DSN).toBeUndefined();
    expect(env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE).toBe(0);
    expect(env.ENABLE_SENTRY_EXAMPLES).toBeUndefined();
    expect(env.NEXT_DIST_DIR).toBe('.next');
    expect(env.SENTRY_TUNNEL_PATH).toBe('/monitoring');
  });

  it.each(['/relay', '/t', '/e-2-e', '/apis'])('accepts the tunnel path %s', (path) => {
    expect(parseEnv({ SENTRY_TUNNEL_PATH: path }).SENTRY_TUNNEL_PATH).toBe(path);
  });

  it('reads a full, valid configuration', () => {
    const env = parseEnv({
      NODE_ENV: 'production',
      NEXT_PUBLIC_SENTRY_DSN: 'https://abc123@o1.ingest.sentry.io/42',
      SENTRY_DSN: 'http://key@127.0.0.1:9000/7',
      NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '0.1',
      SENTRY_ENVIRONMENT: 'staging',
      SENTRY_RELEASE: 'v1.2.3',
      DEPLOYMENT_ID: 'dpl_2026-11-22.1',
      NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ENABLE_SENTRY_EXAMPLES: 'true',
      SENTRY_URL: 'https://sentry.example.com/',
    });
    expect(env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE).toBe(0.1);
    expect(env.ENABLE_SENTRY_EXAMPLES).toBe(true);
    expect(env.DEPLOYMENT_ID).toBe('dpl_2026-11-22.1');
    expect(env.SENTRY_URL).toBe('https://sentry.example.com/');
  });

  it.each([16, 24, 32])('accepts a server actions key of %i bytes', (bytes) => {
    const key = Buffer.alloc(bytes, 9).toString('base64');
    expect(parseEnv({ NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: key }).NEXT_SERVER_ACTIONS_ENCRYPTION_KEY).toBe(key);
  });

  it('treats blank values as unset', () => {
    const env = parseEnv({ NEXT_PUBLIC_SENTRY_DSN: '  ', ENABLE_SENTRY_EXAMPLES: '' });
    expect(env.NEXT_PUBLIC_SENTRY_DSN).toBeUndefined();
    expect(env.ENABLE_SENTRY_EXAMPLES).toBeUndefined();
  });

  it.each([
    ['NEXT_PUBLIC_SENTRY_DSN', 'not a url'],
    ['NEXT_PUBLIC_SENTRY_DSN', 'https://o1.ingest.sentry.io/42'],
    ['SENTRY_DSN', 'ftp://key@host/1'],
    ['SENTRY_DSN', 'https://key@host/project'],
    ['NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE', '1.5'],
    ['NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE', 'all'],
    ['ENABLE_SENTRY_EXAMPLES', 'yes please'],
    ['DEPLOYMENT_ID', 'has spaces'],
    ['NEXT_SERVER_ACTIONS_ENCRYPTION_KEY', Buffer.alloc(20, 7).toString('base64')],
    ['NEXT_SERVER_ACTIONS_ENCRYPTION_KEY', 'not base64 at all!'],
    ['NEXT_SERVER_ACTIONS_ENCRYPTION_KEY', Buffer.alloc(32, 7).toString('base64').slice(0, -1)],
    ['NODE_ENV', 'staging'],
    ['NEXT_DIST_DIR', '../elsewhere'],
    ['SENTRY_URL', 'sentry.example.com'],
    ['SENTRY_URL', 'file:///etc/passwd'],
    ['SENTRY_TUNNEL_PATH', 'monitoring'],
    ['SENTRY_TUNNEL_PATH', '/api'],
    ['SENTRY_TUNNEL_PATH', '/_next'],
    ['SENTRY_TUNNEL_PATH', '/a/b'],
    ['SENTRY_TUNNEL_PATH', '/Relay'],
    ['SENTRY_TUNNEL_PATH', '/relay?x=1'],
    ['SENTRY_TUNNEL_PATH', '/'],
    ['NEXT_PUBLIC_SENTRY_SPOTLIGHT', 'not a url'],
    ['SENTRY_SPOTLIGHT', 'http://'],
    ['SENTRY_TUNNEL_MAX_BYTES', 'lots'],
    ['HSTS_MAX_AGE_SECONDS', '1.5'],
  ])('rejects %s=%j with a message naming the variable once and what it must be', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment variables:\\n  ${name}: must be [^\\n]+$`),
    );
  });

  it('says what a variable must be when it is not text at all', () => {
    expect(() => parseEnv({ SENTRY_RELEASE: false } as never)).toThrow(/\n {2}SENTRY_RELEASE: must be text$/);
  });
});
