import { clientAddressOf } from '@/lib/observability/tunnel-instance';
import { createCspReportLimiter, handleCspReport } from '@/lib/security/csp-report';

const limiter = createCspReportLimiter();

export function POST(request: Request): Promise<Response> {
  return handleCspReport(request, clientAddressOf(request), limiter);
}
