import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FrameworkShapeError,
  isDraftModeRequest,
  NOT_FOUND_ROUTE,
  PRERENDER_MANIFEST_FILE,
  prerenderedHtmlPath,
  prerenderedRoutesFrom,
} from '@/lib/framework-internals.mjs';
import { productionPolicy } from '@/lib/security/content-security-policy';
import type { AppServer, PagePolicy } from '@/lib/server/seam.mjs';

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

/**
 * The hashes of each page prerendered at build, read from the build as it will be served: Next
 * serves such a page's HTML as it is on disk. A page whose cached HTML changes after the build
 * (revalidation, params rendered on demand, partial prerendering) could be allowed neither by these
 * hashes nor by a nonce (the first visitor's would be cached with it), so such a build is refused
 * at start-up rather than served with broken pages; so is a build whose shape is not the one
 * lib/framework-internals.mjs knows.
 */
export function prerenderedScriptHashes(distDir: string): Map<string, string[]> {
  const manifestPath = join(distDir, PRERENDER_MANIFEST_FILE);
  if (!existsSync(manifestPath)) {
    throw new Error(`Content-Security-Policy: no ${manifestPath}; run \`npm run build\` first`);
  }
  const { asBuilt, changing } = prerenderedRoutesFrom(JSON.parse(readFileSync(manifestPath, 'utf8')));
  if (changing.length > 0) {
    throw new Error(
      `Content-Security-Policy: ${changing.join(', ')} change after the build (revalidate, ` +
        'dynamicParams or partial prerendering), so their scripts cannot be allowed by hash; render ' +
        'them per request or fully at build (README, "Deploy")',
    );
  }
  const hashes = new Map<string, string[]>();
  for (const route of asBuilt) {
    const htmlPath = join(distDir, prerenderedHtmlPath(route));
    if (!existsSync(htmlPath)) {
      throw new FrameworkShapeError(`${PRERENDER_MANIFEST_FILE}: the HTML of ${route} is not at ${htmlPath}`);
    }
    hashes.set(route, inlineScriptHashes(readFileSync(htmlPath, 'utf8')));
  }
  return hashes;
}

/**
 * Each request's policy. A prerendered page fetched as usual is served as built: its hashes, no
 * nonce to make. Anything Next renders for the request gets a fresh nonce, which Next writes onto
 * every script: a dynamic page, and a prerendered one rendered anew (`mayRender`: a form posted
 * before hydration, draft mode), which also keeps its hashes. A path Next does not know also gets
 * the not-found page's hashes: Next answers it with that prerendered page.
 */
export function createPolicyForRequest(
  prerendered: Map<string, string[]>,
): (pathname: string, mayRender: boolean) => PagePolicy {
  const staticPolicies = new Map([...prerendered].map(([route, hashes]) => [route, productionPolicy({ hashes })]));
  const notFoundHashes = prerendered.get(NOT_FOUND_ROUTE) ?? [];
  const assetPolicy = productionPolicy({ hashes: [] });
  return (pathname, mayRender) => {
    // Next's own files are scripts and styles, never documents: no nonce to make.
    if (pathname.startsWith('/_next/')) return { policy: assetPolicy };
    const asBuilt = staticPolicies.get(pathname);
    // Only a path with escapes decodes to another.
    const isEscaped = pathname.includes('%');
    if (asBuilt !== undefined && !mayRender && !isEscaped) return { policy: asBuilt };
    const nonce = randomBytes(16).toString('base64');
    // Next routes a path as it was sent (`/%61bout` is not `/about`, but the not-found page); a
    // path with escapes gets both pages' hashes, whichever of the two Next answers with.
    const page = prerendered.get(pathname) ?? (isEscaped ? prerendered.get(decoded(pathname)) : undefined);
    const hashes = page === undefined ? notFoundHashes : isEscaped ? [...page, ...notFoundHashes] : page;
    return { policy: productionPolicy({ nonce, hashes }), nonce };
  };
}

function decoded(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/**
 * The path as Next routes it: absolute-form request lines and dot segments resolved, escapes kept.
 * A target the URL parser takes for a host (`//`, `//a:b`) is a path to Node and to Next, which
 * redirects it; one that is neither keeps no policy of a known page.
 */
export function routedPathname(url: string): string {
  return (URL.parse(url, 'http://localhost') ?? URL.parse(`http://localhost${url}`))?.pathname ?? url;
}

/** At start-up: the policy for each request's URL, from the build in `distDir`, for server.mjs. */
export function startContentSecurityPolicy(distDir: string): NonNullable<AppServer['policyFor']> {
  const policyFor = createPolicyForRequest(prerenderedScriptHashes(distDir));
  // Next renders a prerendered page anew for a POST (a server action's form) and in draft mode.
  return (url, method, cookie) =>
    policyFor(routedPathname(url), (method !== 'GET' && method !== 'HEAD') || isDraftModeRequest(cookie));
}
