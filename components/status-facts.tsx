import type { ReportingStatus } from '@/lib/observability/reporting-status';
import { TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

export type StatusFactsProps = {
  renderedAt: string;
  status: ReportingStatus;
};

export function StatusFacts({ renderedAt, status }: StatusFactsProps) {
  return (
    <dl className="facts">
      <dt>Rendered at</dt>
      <dd>
        <time data-testid="rendered-at" dateTime={renderedAt}>
          {renderedAt}
        </time>
      </dd>
      <dt>Deployment</dt>
      <dd data-testid="deployment-id">{status.deploymentId ?? 'not set'}</dd>
      <dt>Release</dt>
      <dd data-testid="release">{status.release ?? 'unknown'}</dd>
      <dt>Environment</dt>
      <dd>{status.environment ?? 'not set'}</dd>
      <dt>Error reporting</dt>
      <dd data-testid="reporting">{status.isReportingOn ? 'on' : 'off'}</dd>
      <dt>Browser reports</dt>
      <dd data-testid="tunnel">{status.isTunnelOn ? `through the ${TUNNEL_PATH} tunnel` : 'not sent'}</dd>
      <dt>Traces sampled</dt>
      <dd>{`${Math.round(status.tracesSampleRate * 100)} %`}</dd>
    </dl>
  );
}
