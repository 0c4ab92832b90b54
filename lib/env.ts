// zod's functional build: a fraction of the classic one's size and set-up time, which every
// server start pays, once in each of Next's module layers that reads the environment. It loads
// no locale, so every check here carries its own message: a default one would say "Invalid input".
import * as z from 'zod/mini';
// Relative, not `@/`: next.config.ts imports this module, and its loader knows no path aliases.
import { publicVariables } from './public-env';
import { DIST_DIR_PATTERN } from './server/server-env.mjs';
import { DEFAULT_TUNNEL_PATH } from './tunnel/tunnel-path';

// The one module that reads the server's environment. next.config.ts imports it, so a bad value
// stops `next build` and `next start` with the variable's name. Browser code cannot afford zod
// (first-load JS budget): the build-time values are read in lib/public-env.ts, validated here.

const optionalString = z.pipe(
  z.optional(z.string({ error: 'must be text' }).check(z.trim())),
  z.transform((value) => (value === '' ? undefined : value)),
);

/** Unset when blank, else the trimmed text as `schema` reads it. */
const unlessBlank = <T extends z.ZodMiniType<unknown, string>>(schema: T) => z.pipe(optionalString, z.optional(schema));

const DSN_SHAPE = 'must be a Sentry DSN such as https://<key>@<host>/<project-id>';
const dsn = unlessBlank(
  z.url({ protocol: /^https?$/, error: DSN_SHAPE }).check(z.refine((value) => isDsnShaped(value), DSN_SHAPE)),
);

const flag = unlessBlank(
  z.pipe(
    z.enum(['true', 'false', '1', '0'], { error: 'must be "true" or "false"' }),
    z.transform((value) => value === 'true' || value === '1'),
  ),
);

// Next's AES-GCM key for server action closures and ids: base64 of an AES-128, -192 or -256 key.
const ENCRYPTION_KEY_BYTES = [16, 24, 32];
const encryptionKey = unlessBlank(
  z
    .string()
    .check(
      z.refine(
        (value) =>
          /^[A-Za-z0-9+/]+={0,2}$/.test(value) &&
          value.length % 4 === 0 &&
          ENCRYPTION_KEY_BYTES.includes(atob(value).length),
        'must be base64 of 16, 24 or 32 random bytes, e.g. `openssl rand -base64 32`',
      ),
    ),
);

/** A whole number read from text: `invalid` when it is not one, `tooSmall` below `min`. */
const wholeNumber = (min: number, invalid: string, tooSmall: string) =>
  z.pipe(z.coerce.number<string>({ error: invalid }), z.int({ error: invalid }).check(z.minimum(min, tooSmall)));

/** The trimmed text, or `fallback` when it is unset or blank. */
const textOr = (fallback: string) =>
  z.pipe(
    optionalString,
    z.transform((value) => value ?? fallback),
  );

const positiveInt = (fallback: number, min: number) =>
  z.pipe(
    textOr(String(fallback)),
    wholeNumber(min, `must be a whole number of at least ${min}`, `must be at least ${min}`),
  );

const spotlightUrl = unlessBlank(z.url({ error: 'must be a URL such as http://localhost:8969/stream' }));

const matching = (pattern: RegExp, message: string) => z.string().check(z.regex(pattern, message));

const schema = z.object({
  NODE_ENV: z._default(
    z.enum(['development', 'production', 'test'], { error: 'must be "development", "production" or "test"' }),
    'development',
  ),
  NEXT_PUBLIC_SENTRY_DSN: dsn,
  SENTRY_DSN: dsn,
  NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: z.pipe(
    textOr('0'),
    z.coerce
      .number<string>({ error: 'must be a number from 0 to 1' })
      .check(z.minimum(0, 'must be a number from 0 to 1'), z.maximum(1, 'must be a number from 0 to 1')),
  ),
  NEXT_PUBLIC_SENTRY_SPOTLIGHT: spotlightUrl,
  SENTRY_SPOTLIGHT: spotlightUrl,
  SENTRY_ENVIRONMENT: optionalString,
  SENTRY_RELEASE: optionalString,
  DEPLOYMENT_ID: unlessBlank(matching(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"')),
  NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: encryptionKey,
  ENABLE_SENTRY_EXAMPLES: flag,
  SENTRY_TUNNEL_PATH: z.pipe(
    optionalString,
    z._default(
      matching(
        /^\/(?!api$)[a-z0-9][a-z0-9-]{0,62}$/,
        'must be one path segment such as /monitoring: "/", then lowercase letters, digits or "-" (not /api)',
      ),
      DEFAULT_TUNNEL_PATH,
    ),
  ),
  SENTRY_TUNNEL_MAX_BYTES: positiveInt(1024 * 1024, 1024),
  SENTRY_TUNNEL_TIMEOUT_MS: positiveInt(5_000, 100),
  SENTRY_TUNNEL_RATE_LIMIT: positiveInt(120, 1),
  SENTRY_TUNNEL_SPOOL_DIR: optionalString,
  SENTRY_TUNNEL_SPOOL_MAX_BYTES: positiveInt(50 * 1024 * 1024, 0),
  // The proxy Sentry's own Node transport sends through, by the names it reads (lower case): with
  // one for ingest, the server reports through that transport (sentry.server.config.ts).
  http_proxy: optionalString,
  https_proxy: optionalString,
  // As the SDK reads it, untrimmed: set but empty, it exempts every host.
  no_proxy: z.optional(z.string({ error: 'must be text' })),
  TRUST_PROXY: flag,
  HSTS_MAX_AGE_SECONDS: unlessBlank(
    wholeNumber(0, 'must be a whole number of seconds', 'must be a whole number of seconds'),
  ),
  NEXT_DIST_DIR: z.pipe(
    optionalString,
    z._default(matching(DIST_DIR_PATTERN, 'must be a folder name starting with ".next"'), '.next'),
  ),
  SENTRY_AUTH_TOKEN: optionalString,
  SENTRY_ORG: optionalString,
  SENTRY_PROJECT: optionalString,
  // A self-hosted Sentry's address for the upload; unset: sentry.io.
  SENTRY_URL: unlessBlank(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
});

export type Env = z.output<typeof schema>;

function isDsnShaped(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && url.username !== '' && /\/\d+$/.test(url.pathname);
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = z.safeParse(schema, source);
  if (!result.success) {
    // zod goes on checking a value past a failed check: a DSN that is no URL fails both of its checks,
    // with one message.
    const problems = new Set(result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`));
    throw Object.assign(new Error(`Invalid environment variables:\n${[...problems].join('\n')}`), { name: 'EnvError' });
  }
  return result.data;
}

// The server's variables as they are at run time; the browser's as they were at build time.
// NODE_ENV by name too: Next fixes it at build, as the mode the build was made for.
export const env = parseEnv({ ...process.env, NODE_ENV: process.env.NODE_ENV, ...publicVariables });

/** The DSN the server reports to: the run-time override first, then the build-time one. */
export const serverDsn = env.SENTRY_DSN ?? env.NEXT_PUBLIC_SENTRY_DSN;

/** The DSN the browser reports to (through the tunnel): fixed at build time. */
export const browserDsn = env.NEXT_PUBLIC_SENTRY_DSN;

export const isProduction = env.NODE_ENV === 'production';

export const isExamplesEnabled = !isProduction || env.ENABLE_SENTRY_EXAMPLES === true;

/**
 * Whether this build traces. The rate is fixed at build time (next.config.ts inlines it), so the
 * build (what it leaves out) and the server's init (what it turns on) read the same answer.
 */
export const isTracingEnabled = env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE > 0;
