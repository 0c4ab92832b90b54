import { clientAddressOf } from '@/lib/observability/tunnel-instance';
import { createCspReportLimits, handleCspReport } from '@/lib/security/csp-report';

const limits = createCspReportLimits();

export function POST(request: Request): Promise<Response> {
  return handleCspReport(request, clientAddressOf(request), limits);
}
