import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { developmentPolicy, productionPolicy } from '@/lib/security/content-security-policy';
import {
  createPolicyForRequest,
  inlineScriptHashes,
  prerenderedScriptHashes,
  routedPathname,
} from '@/lib/security/page-policies';

const sha256 = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;

function scriptSources(policy: string): string[] {
  return (
    policy
      .split('; ')
      .find((directive) => directive.startsWith('script-src '))
      ?.split(' ')
      .slice(1) ?? []
  );
}

describe('inlineScriptHashes', () => {
  it('hashes each inline script as the browser does, and skips script files and repeats', () => {
    const html =
      '<script src="/_next/static/a.js" async=""></script><script id="_R_">boot()</script>' +
      '<script>self.__next_f.push([1,"x"])</script><script>boot()</script>';
    expect(inlineScriptHashes(html)).toEqual([sha256('boot()'), sha256('self.__next_f.push([1,"x"])')]);
  });
});

describe('productionPolicy', () => {
  it('allows scripts by origin and nonce or hash only, never unsafe sources', () => {
    const policy = productionPolicy({ nonce: 'abc', hashes: ['sha256-x'] });
    expect(scriptSources(policy)).toEqual(["'self'", "'nonce-abc'", "'sha256-x'"]);
    expect(scriptSources(policy).filter((source) => source.includes('unsafe'))).toEqual([]);
    for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "form-action 'self'"]) {
      expect(policy).toContain(directive);
    }
    expect(policy).toContain('report-uri /api/csp-report');
  });
});

describe('developmentPolicy', () => {
  it('lets the browser SDK reach Spotlight', () => {
    expect(developmentPolicy('http://localhost:9999/stream')).toContain("connect-src 'self' http://localhost:9999");
  });
});

describe('prerenderedScriptHashes', () => {
  function buildWith(routes: Record<string, { initialRevalidateSeconds: number | false; html: string }>): string {
    const distDir = mkdtempSync(join(tmpdir(), 'csp-build-'));
    mkdirSync(join(distDir, 'server', 'app'), { recursive: true });
    // As Next 16.4.6 writes it.
    const manifest = { routes: {} as Record<string, object>, dynamicRoutes: {} };
    for (const [route, { initialRevalidateSeconds, html }] of Object.entries(routes)) {
      manifest.routes[route] = { routeType: 'page', response: 'complete', compute: 'static', initialRevalidateSeconds };
      writeFileSync(join(distDir, 'server', 'app', `${route === '/' ? '/index' : route}.html`), html);
    }
    writeFileSync(join(distDir, 'prerender-manifest.json'), JSON.stringify(manifest));
    return distDir;
  }

  it('reads each prerendered page of the build', () => {
    const distDir = buildWith({
      '/': { initialRevalidateSeconds: false, html: '<script>home()</script>' },
      '/about': { initialRevalidateSeconds: false, html: '<script>about()</script>' },
    });
    expect(prerenderedScriptHashes(distDir)).toEqual(
      new Map([
        ['/', [sha256('home()')]],
        ['/about', [sha256('about()')]],
      ]),
    );
  });

  it('refuses a build with a page whose HTML changes after the build, naming it', () => {
    const distDir = buildWith({
      '/': { initialRevalidateSeconds: false, html: '<script>home()</script>' },
      '/news': { initialRevalidateSeconds: 60, html: '<script>news()</script>' },
    });
    expect(() => prerenderedScriptHashes(distDir)).toThrow(/\/news change after the build/);
  });

  it('refuses a page whose HTML is not where the build should have put it, rather than give it no hashes', () => {
    const distDir = buildWith({ '/': { initialRevalidateSeconds: false, html: '<script>home()</script>' } });
    writeFileSync(
      join(distDir, 'prerender-manifest.json'),
      JSON.stringify({
        routes: {
          '/gone': { routeType: 'page', response: 'complete', compute: 'static', initialRevalidateSeconds: false },
        },
        dynamicRoutes: {},
      }),
    );
    expect(() => prerenderedScriptHashes(distDir)).toThrow(/the HTML of \/gone is not at/);
  });

  it('refuses to go on without a build', () => {
    expect(() => prerenderedScriptHashes(join(tmpdir(), 'no-such-build'))).toThrow(/npm run build/);
  });
});

describe('routedPathname', () => {
  it.each([
    ['/status?x=1', '/status'],
    ['http://other.example/status', '/status'],
    ['/a/../status', '/status'],
    ['/%73tatus', '/%73tatus'],
    ['/%E0%A4%A', '/%E0%A4%A'],
  ])('reads %s as Next routes it: %s', (url, pathname) => {
    expect(routedPathname(url)).toBe(pathname);
  });

  it.each(['//', '///', '//@', '//a:b'])('reads %s, which the URL parser takes for a host, as a path', (url) => {
    expect(routedPathname(url)).toBe(url);
  });
});

describe('createPolicyForRequest', () => {
  const policyFor = createPolicyForRequest(
    new Map([
      ['/', ['sha256-home']],
      ['/_not-found', ['sha256-missing']],
    ]),
  );

  it('gives a prerendered page fetched as usual its hashes and no nonce, so it stays as built', () => {
    const { policy, nonce } = policyFor('/', false);
    expect(nonce).toBeUndefined();
    expect(scriptSources(policy)).toEqual(["'self'", "'sha256-home'"]);
  });

  it('gives a prerendered page Next renders anew a nonce beside its hashes', () => {
    const { policy, nonce } = policyFor('/', true);
    expect(scriptSources(policy)).toEqual(["'self'", `'nonce-${nonce}'`, "'sha256-home'"]);
  });

  it('gives any other page a fresh nonce, plus the not-found page’s hashes', () => {
    const first = policyFor('/status', false);
    const second = policyFor('/status', false);
    expect(first.nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(second.nonce).not.toBe(first.nonce);
    expect(scriptSources(first.policy)).toEqual(["'self'", `'nonce-${first.nonce}'`, "'sha256-missing'"]);
  });

  it('gives a path with escapes a nonce and both its page’s and the not-found page’s hashes: Next routes it as sent', () => {
    const withAbout = createPolicyForRequest(
      new Map([
        ['/about', ['sha256-about']],
        ['/_not-found', ['sha256-missing']],
      ]),
    );
    // Next answers `/%61bout` with the not-found page; a page whose own name needs escapes, as built.
    const escaped = withAbout('/%61bout', false);
    expect(scriptSources(escaped.policy)).toEqual([
      "'self'",
      `'nonce-${escaped.nonce}'`,
      "'sha256-about'",
      "'sha256-missing'",
    ]);
    const unknown = withAbout('/%68ome', false);
    expect(scriptSources(unknown.policy)).toEqual(["'self'", `'nonce-${unknown.nonce}'`, "'sha256-missing'"]);
  });

  it('makes no nonce for Next’s own files', () => {
    expect(policyFor('/_next/static/chunks/a.js', false).nonce).toBeUndefined();
  });
});
