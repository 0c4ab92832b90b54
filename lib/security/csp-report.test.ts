import { describe, expect, it } from 'vitest';
import { RateLimiter } from '@/lib/observability/rate-limiter';
import { handleCspReport, isReportable, parseViolations, type Violation } from '@/lib/security/csp-report';

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

  it('drops reports about other sites’ pages and from browser extensions', () => {
    expect(isReportable(violation, 'other.example')).toBe(false);
    expect(isReportable({ ...violation, blockedUrl: 'chrome-extension://abc/inject.js' }, 'app.example')).toBe(false);
    expect(isReportable({ ...violation, sourceFile: 'moz-extension://abc/x.js' }, 'app.example')).toBe(false);
  });
});

describe('handleCspReport', () => {
  const roomy = () => new RateLimiter(100, 60_000);

  it('takes a report with 204', async () => {
    const response = await handleCspReport(post(JSON.stringify(legacy), 'application/csp-report'), 'c', roomy());
    expect(response.status).toBe(204);
  });

  it('answers bad input with a 4xx and a reason', async () => {
    const wrongType = await handleCspReport(post('{}', 'text/plain'), 'c', roomy());
    expect(wrongType.status).toBe(415);
    const malformed = await handleCspReport(post('{"csp-report":1}', 'application/csp-report'), 'c', roomy());
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toBe('Not a CSP violation report');
    const huge = await handleCspReport(post('x'.repeat(40_000), 'application/csp-report'), 'c', roomy());
    expect(huge.status).toBe(413);
  });

  it('limits each client', async () => {
    const limiter = new RateLimiter(1, 60_000);
    const body = JSON.stringify(legacy);
    expect((await handleCspReport(post(body, 'application/csp-report'), 'c', limiter)).status).toBe(204);
    const limited = await handleCspReport(post(body, 'application/csp-report'), 'c', limiter);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await handleCspReport(post(body, 'application/csp-report'), 'd', limiter)).status).toBe(204);
  });
});
