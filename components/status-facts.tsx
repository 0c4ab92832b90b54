import type { ReportingStatus } from '@/lib/observability/reporting-status';
import { TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

export type StatusFactsProps = {
  renderedAt: string;
  status: ReportingStatus;
};

function describeBrowserReports({ isTunnelOn, isSpotlightOn }: ReportingStatus): string {
  const tunnel = `through the ${TUNNEL_PATH} tunnel`;
  if (isTunnelOn) return isSpotlightOn ? `${tunnel}, and to Spotlight` : tunnel;
  return isSpotlightOn ? 'to Spotlight' : 'not sent';
}

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
      <dd data-testid="tunnel">{describeBrowserReports(status)}</dd>
      <dt>Traces sampled</dt>
      <dd>{`${Math.round(status.tracesSampleRate * 100)} %`}</dd>
    </dl>
  );
}
