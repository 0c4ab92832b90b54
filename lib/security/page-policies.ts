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

type PrerenderManifest = {
  routes: Record<string, { initialRevalidateSeconds?: number | false; renderingMode?: string | null }>;
  dynamicRoutes: Record<string, { fallback?: string | null | false }>;
};

/**
 * The hashes of each prerendered page's inline scripts, read from the build as it will be served:
 * Next serves a prerendered page's HTML as it is on disk. A page whose cached HTML changes after
 * the build (revalidation, params rendered on demand, partial prerendering) could be allowed
 * neither by these hashes nor by a nonce (the first visitor's would be cached with it), so such a
 * build is refused at start-up rather than served with broken pages.
 */
export function prerenderedScriptHashes(distDir: string): Map<string, string[]> {
  const manifestPath = join(distDir, 'prerender-manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(`Content-Security-Policy: no ${manifestPath}; run \`npm run build\` first`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as PrerenderManifest;
  const unhashable = [
    ...Object.entries(manifest.routes)
      .filter(([, { initialRevalidateSeconds = false, renderingMode }]) => {
        const revalidates = initialRevalidateSeconds !== false && initialRevalidateSeconds > 0;
        return revalidates || (renderingMode ?? 'STATIC') !== 'STATIC';
      })
      .map(([route]) => route),
    ...Object.entries(manifest.dynamicRoutes ?? {})
      .filter(([, { fallback }]) => fallback !== false)
      .map(([route]) => route),
  ];
  if (unhashable.length > 0) {
    throw new Error(
      `Content-Security-Policy: ${unhashable.join(', ')} change after the build (revalidate, ` +
        'dynamicParams or partial prerendering), so their scripts cannot be allowed by hash; render ' +
        'them per request or fully at build (README, "Deploy")',
    );
  }
  const hashes = new Map<string, string[]>();
  for (const route of Object.keys(manifest.routes)) {
    const htmlPath = join(distDir, 'server', 'app', `${route === '/' ? '/index' : route}.html`);
    if (existsSync(htmlPath)) hashes.set(route, inlineScriptHashes(readFileSync(htmlPath, 'utf8')));
  }
  return hashes;
}

export type PolicyForRequest = { policy: string; nonce?: string };

/**
 * Each request's policy. A prerendered page fetched as usual is served as built: its hashes, no
 * nonce to make. Anything Next renders for the request gets a fresh nonce, which Next writes onto
 * every script: a dynamic page, and a prerendered one rendered anew (`mayRender`: a form posted
 * before hydration, draft mode), which also keeps its hashes. A path Next does not know also gets
 * the not-found page's hashes: Next answers it with that prerendered page.
 */
export function createPolicyForRequest(
  prerendered: Map<string, string[]>,
): (pathname: string, mayRender: boolean) => PolicyForRequest {
  const staticPolicies = new Map([...prerendered].map(([route, hashes]) => [route, productionPolicy({ hashes })]));
  const notFoundHashes = prerendered.get('/_not-found') ?? [];
  const assetPolicy = productionPolicy({ hashes: [] });
  return (pathname, mayRender) => {
    // Next's own files are scripts and styles, never documents: no nonce to make.
    if (pathname.startsWith('/_next/')) return { policy: assetPolicy };
    const asBuilt = staticPolicies.get(pathname);
    if (asBuilt !== undefined && !mayRender) return { policy: asBuilt };
    const nonce = randomBytes(16).toString('base64');
    const hashes = prerendered.get(pathname) ?? notFoundHashes;
    return { policy: productionPolicy({ nonce, hashes }), nonce };
  };
}

// server.mjs lives outside Next's bundles; it reaches the policy through this process-wide slot.
const policySlot = Symbol.for('app.security.csp');
type WithPolicy = typeof globalThis & {
  [policySlot]?: (url: string, method: string, cookie: string | undefined) => PolicyForRequest;
};

/** The path as Next routes it: absolute-form request lines, dot segments and escapes resolved. */
function pathnameOf(url: string): string {
  const { pathname } = new URL(url, 'http://localhost');
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** At start-up: leave server.mjs the policy for each request's URL, from the build in `distDir`. */
export function startContentSecurityPolicy(distDir: string): void {
  const policyFor = createPolicyForRequest(prerenderedScriptHashes(distDir));
  // Next renders a prerendered page anew for a POST (a server action's form) and in draft mode.
  (globalThis as WithPolicy)[policySlot] = (url, method, cookie) =>
    policyFor(
      pathnameOf(url),
      (method !== 'GET' && method !== 'HEAD') || (cookie?.includes('__prerender_bypass=') ?? false),
    );
}
