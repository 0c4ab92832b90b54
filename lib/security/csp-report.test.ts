import { captureMessage } from '@sentry/core';
import { describe, expect, it, vi } from 'vitest';
import {
  blockedSource,
  createCspReportLimits,
  handleCspReport,
  isReportable,
  parseViolations,
  type Violation,
} from '@/lib/security/csp-report';
import { RateLimiter } from '@/lib/server/rate-limiter';

vi.mock('@sentry/core', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@sentry/core')>()),
  captureMessage: vi.fn(),
}));

const legacy = {
  'csp-report': {
    'document-uri': 'https://app.example/status',
    'effective-directive': 'script-src-elem',
    'violated-directive': "script-src-elem 'self'",
    'blocked-uri': 'inline',
    'line-number': 3,
    disposition: 'enforce',
  },
};

function post(body: string, contentType: string): Request {
  return new Request('https://app.example/api/csp-report', {
    method: 'POST',
    headers: { 'content-type': contentType, host: 'app.example' },
    body,
  });
}

describe('parseViolations', () => {
  it('reads a report-uri report', () => {
    expect(parseViolations('application/csp-report', JSON.stringify(legacy))).toEqual([
      expect.objectContaining({ documentUrl: 'https://app.example/status', directive: 'script-src-elem', line: 3 }),
    ]);
  });

  it('reads the CSP reports of a Reporting API batch and skips the others', () => {
    const batch = [
      { type: 'deprecation', body: {} },
      {
        type: 'csp-violation',
        body: {
          documentURL: 'https://app.example/',
          effectiveDirective: 'connect-src',
          blockedURL: 'https://x.test/a',
        },
      },
    ];
    expect(parseViolations('application/reports+json', JSON.stringify(batch))).toEqual([
      expect.objectContaining({ directive: 'connect-src', blockedUrl: 'https://x.test/a', disposition: 'enforce' }),
    ]);
  });

  it('refuses what is not a report', () => {
    expect(parseViolations('application/csp-report', '{"csp-report":{}}')).toBeUndefined();
    expect(parseViolations('application/csp-report', 'not json')).toBeUndefined();
    expect(parseViolations('application/reports+json', JSON.stringify(Array(21).fill({ type: 'x' })))).toBeUndefined();
  });
});

describe('isReportable', () => {
  const violation: Violation = {
    documentUrl: 'https://app.example/',
    directive: 'script-src-elem',
    blockedUrl: 'inline',
    disposition: 'enforce',
  };

  it('keeps violations on our own pages', () => {
    expect(isReportable(violation, 'app.example')).toBe(true);
  });

  it('drops reports about other sites’ pages, from browser extensions, and of made-up directives', () => {
    expect(isReportable(violation, 'other.example')).toBe(false);
    expect(isReportable({ ...violation, blockedUrl: 'chrome-extension://abc/inject.js' }, 'app.example')).toBe(false);
    expect(isReportable({ ...violation, sourceFile: 'moz-extension://abc/x.js' }, 'app.example')).toBe(false);
    expect(isReportable({ ...violation, directive: 'buy-my-pills' }, 'app.example')).toBe(false);
  });
});

describe('blockedSource', () => {
  it('names what was blocked by keyword or origin, never by the reporter’s own text', () => {
    expect(blockedSource('')).toBe('inline');
    expect(blockedSource('eval')).toBe('eval');
    expect(blockedSource('https://cdn.test/x.js?token=secret')).toBe('https://cdn.test');
    expect(blockedSource('data:text/javascript,alert(1)')).toBe('data');
    expect(blockedSource('a new issue for every value')).toBe('other');
  });
});

describe('handleCspReport', () => {
  const report = (blocked: string) =>
    JSON.stringify({ 'csp-report': { ...legacy['csp-report'], 'blocked-uri': blocked } });

  it('takes a report with 204 and sends its violation to Sentry without the query string', async () => {
    const body = JSON.stringify({
      'csp-report': { ...legacy['csp-report'], 'document-uri': 'https://app.example/reset?token=secret' },
    });
    const response = await handleCspReport(post(body, 'application/csp-report'), 'c', createCspReportLimits());
    expect(response.status).toBe(204);
    expect(captureMessage).toHaveBeenCalledWith('Content Security Policy: script-src-elem blocked inline', {
      level: 'warning',
      fingerprint: ['csp-violation', 'script-src-elem', 'inline'],
      tags: { 'csp.directive': 'script-src-elem', 'csp.disposition': 'enforce' },
      contexts: { csp: expect.objectContaining({ documentUrl: 'https://app.example/reset' }) },
    });
  });

  it('answers bad input with a 4xx and a reason', async () => {
    const limits = createCspReportLimits();
    const wrongType = await handleCspReport(post('{}', 'text/plain'), 'c', limits);
    expect(wrongType.status).toBe(415);
    const malformed = await handleCspReport(post('{"csp-report":1}', 'application/csp-report'), 'c', limits);
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toBe('Not a CSP violation report');
    const huge = await handleCspReport(post('x'.repeat(40_000), 'application/csp-report'), 'c', limits);
    expect(huge.status).toBe(413);
  });

  it('limits each client', async () => {
    const limits = { ...createCspReportLimits(), perClient: new RateLimiter(1, 60_000) };
    const body = JSON.stringify(legacy);
    expect((await handleCspReport(post(body, 'application/csp-report'), 'c', limits)).status).toBe(204);
    const limited = await handleCspReport(post(body, 'application/csp-report'), 'c', limits);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await handleCspReport(post(body, 'application/csp-report'), 'd', limits)).status).toBe(204);
  });

  it('sends one event a minute per kind of violation, however many clients report it', async () => {
    // lru-cache reads a start time of 0 as "no expiry": the clock starts later, as a real one does.
    let now = 1_000;
    const limits = createCspReportLimits(() => now);
    for (const client of ['a', 'b', 'c']) {
      await handleCspReport(post(report('inline'), 'application/csp-report'), client, limits);
    }
    expect(captureMessage).toHaveBeenCalledTimes(1);
    now = 62_000;
    await handleCspReport(post(report('inline'), 'application/csp-report'), 'a', limits);
    expect(captureMessage).toHaveBeenCalledTimes(2);
  });

  it('caps the events the whole process sends, whoever reports', async () => {
    const limits = { ...createCspReportLimits(), overall: new RateLimiter(2, 60_000) };
    for (const [index, client] of ['a', 'b', 'c', 'd'].entries()) {
      await handleCspReport(post(report(`https://cdn${index}.test/x.js`), 'application/csp-report'), client, limits);
    }
    expect(captureMessage).toHaveBeenCalledTimes(2);
  });
});
