// The header Next's browser router puts on every server action and navigation request: the
// deployment that rendered the page (next.config.ts `deploymentId`).
const DEPLOYMENT_ID_HEADER = 'x-deployment-id';

/**
 * A server action posted from a page another deployment rendered. Its action id may not exist in
 * this build, and Next would answer 409 "Server Action unavailable", which the browser shows as
 * the error screen. An `x-action-redirect` answer makes Next's client load the page in full
 * instead, from this deployment. (Navigations need nothing: the client compares the
 * `x-nextjs-deployment-id` of each RSC answer with its own and reloads on a mismatch.)
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
    // Next's client splits the value at ';': one in the query would cut the address short.
    headers: {
      'x-action-redirect': `${pathname}${search.replaceAll(';', '%3B')};replace`,
      'cache-control': 'no-store',
    },
  });
}
