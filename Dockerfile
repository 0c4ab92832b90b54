# syntax=docker/dockerfile:1
# Next.js's standalone pattern: install, build, then a runtime image holding only the standalone
# server (server.mjs, the node_modules Next traced, the static files). Debian slim rather than
# Alpine: the lock file records glibc builds of Next's compiler (see README, "Deploy").
#   docker build --build-arg DEPLOYMENT_ID=$(git rev-parse --short HEAD) --build-arg SENTRY_RELEASE=$(git rev-parse HEAD) \
#     --secret id=actions_key,env=NEXT_SERVER_ACTIONS_ENCRYPTION_KEY -t app .
#   docker run -p 3000:3000 -e NEXT_SERVER_ACTIONS_ENCRYPTION_KEY app

FROM node:20-bookworm-slim AS base
ENV NEXT_TELEMETRY_DISABLED=1

FROM base AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` honours the lock file; `npm ci` stops on platform packages a mirror lacks.
RUN PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund

FROM base AS builder
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# Build-time settings (README, "Configuration"); each instance of a deployment needs the same ones.
ARG NEXT_PUBLIC_SENTRY_DSN=""
ARG NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE=""
ARG SENTRY_ENVIRONMENT=""
ARG SENTRY_RELEASE=""
ARG DEPLOYMENT_ID=""
ARG HSTS_MAX_AGE_SECONDS=""
ARG SENTRY_ORG=""
ARG SENTRY_PROJECT=""
ARG SENTRY_URL=""
ARG SENTRY_TUNNEL_PATH=""
# The server actions key and the Sentry auth token (source-map upload) are secrets: build
# secrets, never a layer. Without a token the build uploads nothing and makes no network call.
RUN --mount=type=secret,id=actions_key,required=false \
    --mount=type=secret,id=sentry_auth_token,required=false \
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY="$(cat /run/secrets/actions_key 2>/dev/null || true)" \
    SENTRY_AUTH_TOKEN="$(cat /run/secrets/sentry_auth_token 2>/dev/null || true)" \
    npm run build

FROM base AS runner
WORKDIR /app
ENV NODE_ENV=production PORT=3000 HOSTNAME=0.0.0.0
RUN groupadd --system --gid 1001 nodejs && useradd --system --uid 1001 --gid nodejs nextjs
COPY --from=builder --chown=nextjs:nodejs /app/.next/standalone ./
USER nextjs
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# server.mjs drains and flushes on SIGTERM; exec form so it receives the signal itself.
CMD ["node", "server.mjs"]
