// The policy strings. next.config.ts uses the development one; in production each page gets its
// own script sources (lib/security/page-policies.ts).

/** Where browsers send violation reports (app/api/csp-report/route.ts). */
export const CSP_REPORT_PATH = '/api/csp-report';

// Everything but scripts: styles may be inline (Next and React write style attributes), the
// tunnel is same-origin, nothing is framed, no plugins, no <base>, forms post home only.
const BASE_DIRECTIVES = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
];

export type ScriptSources = {
  /** Made for this request: Next writes it onto each script it renders. */
  nonce?: string;
  /** The inline scripts of a page prerendered at build. */
  hashes: readonly string[];
};

// Built once: only the script sources differ between requests.
const BEFORE_SCRIPTS = `${BASE_DIRECTIVES.join('; ')}; script-src 'self'`;
const AFTER_SCRIPTS = `; connect-src 'self'; worker-src 'self' blob:; report-uri ${CSP_REPORT_PATH}`;

/**
 * The production policy. Scripts: same-origin files (Next's chunks) and the page's own inline
 * scripts, by nonce or by hash; never 'unsafe-inline' or 'unsafe-eval'.
 */
export function productionPolicy({ nonce, hashes }: ScriptSources): string {
  const nonceSource = nonce === undefined ? '' : ` 'nonce-${nonce}'`;
  const hashSources = hashes.map((hash) => ` '${hash}'`).join('');
  return `${BEFORE_SCRIPTS}${nonceSource}${hashSources}${AFTER_SCRIPTS}`;
}

/**
 * `next dev`: React's dev build evaluates code for its stack traces and Next's overlay injects
 * inline scripts, so scripts are not restricted; the browser SDK also talks to Spotlight.
 */
export function developmentPolicy(spotlightUrl: string | undefined): string {
  const connect = ["'self'", spotlightUrl ? new URL(spotlightUrl).origin : 'http://localhost:8969'];
  return [
    ...BASE_DIRECTIVES,
    "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
    `connect-src ${connect.join(' ')}`,
    "worker-src 'self' blob:",
  ].join('; ');
}
