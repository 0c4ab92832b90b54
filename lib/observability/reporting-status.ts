import 'server-only';
import { browserDsn } from '@/lib/env';
import { browserReportingSettings } from '@/lib/observability/browser-settings';
import { isReportingEnabled } from '@/lib/observability/sentry-options';
import { serverReportingSettings } from '@/lib/observability/server-options';
import { publicEnv } from '@/lib/public-env';

export type ReportingStatus = {
  deploymentId: string | undefined;
  release: string | undefined;
  environment: string | undefined;
  isReportingOn: boolean;
  isTunnelOn: boolean;
  /** In development: the browser's events go to Spotlight too (beside the tunnel, when there is a DSN). */
  isSpotlightOn: boolean;
  tracesSampleRate: number;
};

/** What an operator needs to know about this deployment's error reporting; no DSN, no secrets. */
export function getReportingStatus(): ReportingStatus {
  return {
    deploymentId: publicEnv.deploymentId,
    release: serverReportingSettings.release,
    environment: serverReportingSettings.environment,
    isReportingOn: isReportingEnabled(serverReportingSettings),
    isTunnelOn: browserDsn !== undefined,
    isSpotlightOn: browserReportingSettings.spotlightUrl !== undefined,
    tracesSampleRate: serverReportingSettings.tracesSampleRate,
  };
}
