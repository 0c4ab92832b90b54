import { DEPLOYMENT_ID_HEADER, reloadingActionHeaders } from '@/lib/framework-internals.mjs';

/**
 * A server action posted from a page another deployment rendered. Its action id may not exist in
 * this build, and Next would answer 409 "Server Action unavailable", which the browser shows as
 * the error screen. An answer that makes Next's client load the page in full instead, from this
 * deployment (lib/framework-internals.mjs). Navigations need nothing: Next's client compares the
 * deployment id of each answer with its own and reloads on a mismatch.
 * Returns undefined when the request comes from this deployment, or says nothing of its own.
 */
export function reloadIntoThisDeployment(request: Request, deploymentId: string | undefined): Response | undefined {
  const clientDeploymentId = request.headers.get(DEPLOYMENT_ID_HEADER);
  if (deploymentId === undefined || clientDeploymentId === null || clientDeploymentId === deploymentId) {
    return undefined;
  }
  const { pathname, search } = new URL(request.url);
  return new Response(null, {
    status: 409,
    // Not a Location header: fetch would follow it and hand the client the page's HTML.
    headers: { ...reloadingActionHeaders(`${pathname}${search}`), 'cache-control': 'no-store' },
  });
}
