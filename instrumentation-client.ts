// Turbopack loads only this file as the browser entry, so the client config is imported from here.
import './sentry.client.config';

export { captureRouterTransitionStart as onRouterTransitionStart } from '@sentry/nextjs';
