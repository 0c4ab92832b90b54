import { createCspReportLimits, handleCspReport } from '@/lib/security/csp-report';
import { clientAddressOf } from '@/lib/server/client-address';

const limits = createCspReportLimits();

export function POST(request: Request): Promise<Response> {
  return handleCspReport(request, clientAddressOf(request.headers), limits);
}
