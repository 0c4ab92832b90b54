import 'server-only';
import { captureMessage } from '@sentry/nextjs';
import { z } from 'zod';
import { RateLimiter } from '@/lib/observability/rate-limiter';
import { BodyTooLargeError, readBodyCapped } from '@/lib/server/read-body';

// A browser's report is well under 4 KB; a batch of Reporting API reports a few of them.
const MAX_BODY_BYTES = 32 * 1024;
const MAX_REPORTS_PER_BATCH = 20;
// Per client and minute: a page that breaks its policy in a loop must not flood Sentry.
const REPORTS_PER_MINUTE = 30;

const text = (max: number) => z.string().max(max);
const position = z.number().int().nonnegative();

/** `report-uri`: one violation as `application/csp-report`. */
const legacyReport = z.object({
  'csp-report': z.object({
    'document-uri': text(4096),
    'effective-directive': text(128).optional(),
    'violated-directive': text(1024).optional(),
    'blocked-uri': text(4096).optional(),
    'source-file': text(4096).optional(),
    'line-number': position.optional(),
    'column-number': position.optional(),
    'script-sample': text(256).optional(),
    disposition: z.enum(['enforce', 'report']).optional(),
  }),
});

/** `report-to`: a batch as `application/reports+json`, of which the CSP ones are ours. */
const reportingApiBatch = z.array(z.object({ type: text(64), body: z.unknown() })).max(MAX_REPORTS_PER_BATCH);
const reportingApiViolation = z.object({
  documentURL: text(4096),
  effectiveDirective: text(128),
  blockedURL: text(4096).nullish(),
  sourceFile: text(4096).nullish(),
  lineNumber: position.nullish(),
  columnNumber: position.nullish(),
  sample: text(256).nullish(),
  disposition: z.enum(['enforce', 'report']).optional(),
});

export type Violation = {
  documentUrl: string;
  directive: string;
  blockedUrl: string;
  sourceFile?: string;
  line?: number;
  column?: number;
  sample?: string;
  disposition: 'enforce' | 'report';
};

/** The violations in a report body, or undefined when it is not a CSP report of either format. */
export function parseViolations(contentType: string, body: string): Violation[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (contentType === 'application/csp-report') {
    const parsed = legacyReport.safeParse(json);
    if (!parsed.success) return undefined;
    const report = parsed.data['csp-report'];
    return [
      {
        documentUrl: report['document-uri'],
        directive: report['effective-directive'] ?? report['violated-directive']?.split(' ')[0] ?? 'unknown',
        blockedUrl: report['blocked-uri'] ?? '',
        sourceFile: report['source-file'],
        line: report['line-number'],
        column: report['column-number'],
        sample: report['script-sample'],
        disposition: report.disposition ?? 'enforce',
      },
    ];
  }
  const parsed = reportingApiBatch.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.flatMap(({ type, body }) => {
    const report = type === 'csp-violation' ? reportingApiViolation.safeParse(body) : undefined;
    if (!report?.success) return [];
    return [
      {
        documentUrl: report.data.documentURL,
        directive: report.data.effectiveDirective,
        blockedUrl: report.data.blockedURL ?? '',
        sourceFile: report.data.sourceFile ?? undefined,
        line: report.data.lineNumber ?? undefined,
        column: report.data.columnNumber ?? undefined,
        sample: report.data.sample ?? undefined,
        disposition: report.data.disposition ?? 'enforce',
      },
    ];
  });
}

const EXTENSION_SCHEMES = /^(chrome|moz|safari|safari-web|ms-browser)-extension:/;

/**
 * Whether a violation is worth an event: one of our own pages, and not a browser extension
 * injecting into it (extensions trip every strict policy, and nothing in the app can fix that).
 */
export function isReportable(violation: Violation, host: string | null): boolean {
  const document = URL.parse(violation.documentUrl);
  if (document === null || document.host !== host) return false;
  return !EXTENSION_SCHEMES.test(violation.blockedUrl) && !EXTENSION_SCHEMES.test(violation.sourceFile ?? '');
}

/** What was blocked, as Sentry groups it: inline and eval by name, a URL by its origin. */
function blockedSource(blockedUrl: string): string {
  if (blockedUrl === '' || !blockedUrl.includes(':')) return blockedUrl || 'inline';
  return URL.parse(blockedUrl)?.origin ?? blockedUrl;
}

function reportToSentry(violation: Violation): void {
  const blocked = blockedSource(violation.blockedUrl);
  captureMessage(`Content Security Policy: ${violation.directive} blocked ${blocked}`, {
    level: 'warning',
    fingerprint: ['csp-violation', violation.directive, blocked],
    tags: { 'csp.directive': violation.directive, 'csp.disposition': violation.disposition },
    contexts: { csp: { ...violation } },
  });
}

function answer(status: number, reason?: string, headers: Record<string, string> = {}): Response {
  return new Response(reason ?? null, {
    status,
    headers: {
      'cache-control': 'no-store',
      ...(reason ? { 'content-type': 'text/plain; charset=utf-8' } : {}),
      ...headers,
    },
  });
}

const REPORT_CONTENT_TYPES = new Set(['application/csp-report', 'application/reports+json']);

/**
 * Takes a browser's CSP violation report (either format) and reports each violation of our own
 * pages to Sentry as a warning. Anyone can post here, so it is bounded: body size, batch size and
 * a per-client rate. 204 for a report taken, even one not passed on (an extension's).
 */
export async function handleCspReport(request: Request, client: string, limiter: RateLimiter): Promise<Response> {
  const contentType = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!REPORT_CONTENT_TYPES.has(contentType)) {
    return answer(415, 'A CSP report is application/csp-report or application/reports+json');
  }
  const limit = limiter.take(client);
  if (!limit.allowed) {
    return answer(429, 'Too many reports', { 'retry-after': String(Math.ceil(limit.retryAfterMs / 1000)) });
  }
  let body: Uint8Array;
  try {
    body = await readBodyCapped(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return answer(413, `CSP reports are limited to ${MAX_BODY_BYTES} bytes`);
    return answer(400, 'The report could not be read');
  }
  const violations = parseViolations(contentType, new TextDecoder().decode(body));
  if (violations === undefined) {
    return answer(400, 'Not a CSP violation report');
  }
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  for (const violation of violations) {
    if (isReportable(violation, host)) reportToSentry(violation);
  }
  return answer(204);
}

export function createCspReportLimiter(): RateLimiter {
  return new RateLimiter(REPORTS_PER_MINUTE, 60_000);
}
