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

export type ScriptSources =
  /** A page rendered for this request: Next writes the nonce onto each of its scripts. */
  | { nonce: string; hashes?: readonly string[] }
  /** A page prerendered at build: its inline scripts are known, and so are their hashes. */
  | { hashes: readonly string[] };

/**
 * The production policy. Scripts: same-origin files (Next's chunks) and the page's own inline
 * scripts, by nonce or by hash; never 'unsafe-inline' or 'unsafe-eval'.
 */
export function productionPolicy(scripts: ScriptSources): string {
  const sources = ["'self'"];
  if ('nonce' in scripts) sources.push(`'nonce-${scripts.nonce}'`);
  for (const hash of scripts.hashes ?? []) sources.push(`'${hash}'`);
  return [
    ...BASE_DIRECTIVES,
    `script-src ${sources.join(' ')}`,
    "connect-src 'self'",
    "worker-src 'self' blob:",
    `report-uri ${CSP_REPORT_PATH}`,
  ].join('; ');
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
