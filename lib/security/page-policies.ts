import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productionPolicy } from '@/lib/security/content-security-policy';

const INLINE_SCRIPT = /<script((?:\s[^>]*)?)>([\s\S]*?)<\/script>/g;

/** The CSP hash source of each inline script in an HTML document, in order, without repeats. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes = '', body = ''] of html.matchAll(INLINE_SCRIPT)) {
    if (/\ssrc\s*=/i.test(attributes) || body === '') continue;
    hashes.add(`sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}`);
  }
  return [...hashes];
}

type PrerenderManifest = { routes: Record<string, { initialRevalidateSeconds?: number | false }> };

/**
 * The hashes of each prerendered page's inline scripts, read from the build as it will be served:
 * Next serves a prerendered page's HTML as it is on disk. A page that revalidates is left out (its
 * HTML changes after the build), and so falls back to a nonce, which needs it rendered per request.
 */
export function prerenderedScriptHashes(distDir: string): Map<string, string[]> {
  const hashes = new Map<string, string[]>();
  const manifestPath = join(distDir, 'prerender-manifest.json');
  if (!existsSync(manifestPath)) return hashes;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PrerenderManifest;
  for (const [route, { initialRevalidateSeconds }] of Object.entries(manifest.routes)) {
    if (typeof initialRevalidateSeconds === 'number' && initialRevalidateSeconds > 0) continue;
    const htmlPath = join(distDir, 'server', 'app', `${route === '/' ? '/index' : route}.html`);
    if (existsSync(htmlPath)) hashes.set(route, inlineScriptHashes(readFileSync(htmlPath, 'utf8')));
  }
  return hashes;
}

export type PolicyForRequest = { policy: string; nonce?: string };

/**
 * Picks each request's policy: a prerendered page's hashes, or a fresh nonce for anything Next
 * renders per request. A path Next does not know gets the not-found page's hashes too, since Next
 * may answer it with that prerendered page.
 */
export function createPolicyForRequest(prerendered: Map<string, string[]>): (pathname: string) => PolicyForRequest {
  const staticPolicies = new Map([...prerendered].map(([route, hashes]) => [route, productionPolicy({ hashes })]));
  const notFoundHashes = prerendered.get('/_not-found') ?? [];
  const assetPolicy = productionPolicy({ hashes: [] });
  return (pathname) => {
    const known = staticPolicies.get(pathname);
    if (known !== undefined) return { policy: known };
    // Next's own files are scripts and styles, never documents: no nonce to make.
    if (pathname.startsWith('/_next/')) return { policy: assetPolicy };
    const nonce = randomBytes(16).toString('base64');
    return { policy: productionPolicy({ nonce, hashes: notFoundHashes }), nonce };
  };
}

// server.mjs lives outside Next's bundles; it reaches the policy through this process-wide slot.
const policySlot = Symbol.for('app.security.csp');
type WithPolicy = typeof globalThis & { [policySlot]?: (url: string) => PolicyForRequest };

function pathnameOf(url: string): string {
  const pathname = url.split('?', 1)[0] ?? '/';
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** At start-up: leave server.mjs the policy for each request's URL, from the build in `distDir`. */
export function startContentSecurityPolicy(distDir: string): void {
  const policyFor = createPolicyForRequest(prerenderedScriptHashes(distDir));
  (globalThis as WithPolicy)[policySlot] = (url) => policyFor(pathnameOf(url));
}
