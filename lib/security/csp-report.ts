import 'server-only';
import { captureMessage } from '@sentry/core';
import { LRUCache } from 'lru-cache';
import * as z from 'zod/mini';
import { mediaTypeOf } from '@/lib/server/media-type';
import { RateLimiter } from '@/lib/server/rate-limiter';
import { BodyTimeoutError, BodyTooLargeError, readBodyCapped } from '@/lib/server/read-body';
import { textResponse } from '@/lib/server/text-response';

// A browser's report is well under 4 KB; a batch of Reporting API reports a few of them.
const MAX_BODY_BYTES = 32 * 1024;
// A browser sends its report in one go; 5 s is ample for 32 KB.
const BODY_DEADLINE_MS = 5_000;
const MAX_REPORTS_PER_BATCH = 20;
// Per client and minute, reports and violations sent: a page that breaks its policy in a loop
// must not flood Sentry. And for the whole process, whoever reports.
const REPORTS_PER_MINUTE = 30;
const VIOLATIONS_PER_MINUTE = 100;

const text = (max: number) => z.string().check(z.maxLength(max));
const position = z.int().check(z.nonnegative());

/** `report-uri`: one violation as `application/csp-report`. */
const legacyReport = z.object({
  'csp-report': z.object({
    'document-uri': text(4096),
    'effective-directive': z.optional(text(128)),
    'violated-directive': z.optional(text(1024)),
    'blocked-uri': z.optional(text(4096)),
    'source-file': z.optional(text(4096)),
    'line-number': z.optional(position),
    'column-number': z.optional(position),
    'script-sample': z.optional(text(256)),
    disposition: z.optional(z.enum(['enforce', 'report'])),
  }),
});

/** `report-to`: a batch as `application/reports+json`, of which the CSP ones are ours. */
const reportingApiBatch = z
  .array(z.object({ type: text(64), body: z.unknown() }))
  .check(z.maxLength(MAX_REPORTS_PER_BATCH));
const reportingApiViolation = z.object({
  documentURL: text(4096),
  effectiveDirective: text(128),
  blockedURL: z.nullish(text(4096)),
  sourceFile: z.nullish(text(4096)),
  lineNumber: z.nullish(position),
  columnNumber: z.nullish(position),
  sample: z.nullish(text(256)),
  disposition: z.optional(z.enum(['enforce', 'report'])),
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
    const parsed = z.safeParse(legacyReport, json);
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
  const parsed = z.safeParse(reportingApiBatch, json);
  if (!parsed.success) return undefined;
  return parsed.data.flatMap(({ type, body }) => {
    const report = type === 'csp-violation' ? z.safeParse(reportingApiViolation, body) : undefined;
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

// Directives a browser reports; anything else in a report is made up, and not worth an issue.
const KNOWN_DIRECTIVES = new Set([
  'default-src',
  'script-src',
  'script-src-elem',
  'script-src-attr',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'img-src',
  'font-src',
  'connect-src',
  'media-src',
  'object-src',
  'frame-src',
  'child-src',
  'worker-src',
  'manifest-src',
  'frame-ancestors',
  'form-action',
  'base-uri',
  'require-trusted-types-for',
  'trusted-types',
]);

// What browsers put in blocked-uri instead of a URL.
const BLOCKED_KEYWORDS = new Set(['inline', 'eval', 'wasm-eval', 'self', 'trusted-types-policy', 'trusted-types-sink']);

/**
 * Whether a violation is worth an event: one of our own pages, a directive browsers report, and
 * not a browser extension injecting into the page (extensions trip every strict policy, and
 * nothing in the app can fix that).
 */
export function isReportable(violation: Violation, host: string | null): boolean {
  const document = URL.parse(violation.documentUrl);
  if (document === null || document.host !== host) return false;
  if (!KNOWN_DIRECTIVES.has(violation.directive)) return false;
  return !EXTENSION_SCHEMES.test(violation.blockedUrl) && !EXTENSION_SCHEMES.test(violation.sourceFile ?? '');
}

/**
 * What was blocked, as Sentry groups it: a keyword (inline, eval, data, blob), a URL's origin, or
 * "other". Never the reporter's own text, which would make a new issue of every made-up value.
 */
export function blockedSource(blockedUrl: string): string {
  if (blockedUrl === '') return 'inline';
  if (BLOCKED_KEYWORDS.has(blockedUrl)) return blockedUrl;
  const url = URL.parse(blockedUrl);
  if (url === null) return 'other';
  if (url.protocol === 'data:' || url.protocol === 'blob:') return url.protocol.slice(0, -1);
  return /^(https?|wss?):$/.test(url.protocol) ? url.origin : 'other';
}

/** A URL without its query and fragment, which can hold tokens; what is not a URL is left out. */
function withoutQuery(value: string | undefined): string | undefined {
  const url = value === undefined ? null : URL.parse(value);
  return url === null ? undefined : `${url.origin}${url.pathname}`;
}

function reportToSentry(violation: Violation, blocked: string): void {
  captureMessage(`Content Security Policy: ${violation.directive} blocked ${blocked}`, {
    level: 'warning',
    fingerprint: ['csp-violation', violation.directive, blocked],
    tags: { 'csp.directive': violation.directive, 'csp.disposition': violation.disposition },
    contexts: {
      csp: {
        documentUrl: withoutQuery(violation.documentUrl),
        blocked,
        sourceFile: withoutQuery(violation.sourceFile),
        line: violation.line,
        column: violation.column,
        sample: violation.sample,
        disposition: violation.disposition,
      },
    },
  });
}

const REPORT_CONTENT_TYPES = new Set(['application/csp-report', 'application/reports+json']);
// A kind of violation (directive and what it blocked) goes to Sentry at most once per window.
const REPEAT_WINDOW_MS = 60_000;
const REMEMBERED_KINDS = 1_000;

export type CspReportLimits = {
  /** Per client: each report, and each violation in it that would be sent. */
  perClient: RateLimiter;
  /** For the whole process: violations sent to Sentry, whoever reports them. */
  overall: RateLimiter;
  /** The kinds of violation sent in the last minute. */
  recentKinds: LRUCache<string, true>;
};

// Monotonic, as the rate limiters' own: a wall clock set back would hold every allowance back as long.
export function createCspReportLimits(now: () => number = () => performance.now()): CspReportLimits {
  return {
    perClient: new RateLimiter(REPORTS_PER_MINUTE, 60_000, undefined, now),
    overall: new RateLimiter(VIOLATIONS_PER_MINUTE, 60_000, undefined, now),
    // Its clock in milliseconds, as the rate limiters'.
    recentKinds: new LRUCache({ max: REMEMBERED_KINDS, ttl: REPEAT_WINDOW_MS, ttlResolution: 0, perf: { now } }),
  };
}

/** Whether this kind of violation may be sent now; remembers that it was. */
function takeKind(limits: CspReportLimits, kind: string): boolean {
  if (limits.recentKinds.has(kind)) return false;
  limits.recentKinds.set(kind, true);
  return true;
}

/**
 * Takes a browser's CSP violation report (either format) and reports each violation of our own
 * pages to Sentry as a warning. Anyone can post here, so it is bounded: body and batch size, a
 * per-client rate on reports and on violations sent, one event per kind of violation a minute,
 * and a cap for the whole process. 204 for a report taken, even one not passed on.
 */
export async function handleCspReport(request: Request, client: string, limits: CspReportLimits): Promise<Response> {
  const contentType = mediaTypeOf(request.headers);
  if (!REPORT_CONTENT_TYPES.has(contentType)) {
    return textResponse(415, 'A CSP report is application/csp-report or application/reports+json');
  }
  const limit = limits.perClient.take(client);
  if (!limit.allowed) {
    return textResponse(429, 'Too many reports', { 'retry-after': String(Math.ceil(limit.retryAfterMs / 1000)) });
  }
  let body: Uint8Array;
  try {
    body = await readBodyCapped(request, MAX_BODY_BYTES, BODY_DEADLINE_MS);
  } catch (error) {
    // Unread, as the tunnel's (lib/tunnel/tunnel.ts): the connection is closed rather than drained.
    if (error instanceof BodyTooLargeError)
      return textResponse(413, `CSP reports are limited to ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
    if (error instanceof BodyTimeoutError)
      return textResponse(408, 'The report did not arrive in time', { connection: 'close' });
    return textResponse(400, 'The report could not be read');
  }
  const violations = parseViolations(contentType, new TextDecoder().decode(body));
  if (violations === undefined) {
    return textResponse(400, 'Not a CSP violation report');
  }
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  for (const violation of violations) {
    if (!isReportable(violation, host)) continue;
    const blocked = blockedSource(violation.blockedUrl);
    if (!takeKind(limits, `${violation.directive} ${blocked}`)) continue;
    if (!limits.perClient.take(client).allowed || !limits.overall.take('all').allowed) break;
    reportToSentry(violation, blocked);
  }
  return new Response(null, { status: 204 });
}
