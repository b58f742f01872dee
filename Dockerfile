# Production image of the Gatehouse gateway.
#
# There is no build step: Node 24 runs the TypeScript sources directly (type stripping).
#
# In a container, set DATABASE_URL (or DATABASE_URL_FILE) to a real PostgreSQL 14+. Without it the gateway
# starts its embedded PostgreSQL, which keeps its data in ./.data inside the container: lost with the container,
# and one database per replica.
#
# APP_ENV=production makes two settings mandatory (boot is refused without them): API_AUTH_MODE
# (disabled, warn or enforce) and, with the auth plugin enabled, AUTH_MODE (local, oidc or local+oidc) and
# AUTH_SECRET (or AUTH_SECRET_FILE).

# The base is pinned to a Node release (the version of the `node` devDependency the tests run on); bump both
# stages together.
FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production APP_ENV=production PORT=8080 METRICS_PORT=9464
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
# The composition root: the `gatehouse` command and the list of built-in plugins (what CMD runs).
COPY app ./app
COPY gateway ./gateway
COPY plugins ./plugins
COPY migrations ./migrations
# The operator is the same image with another command: `node app/cli.ts operator` (operator/deploy/).
COPY operator/src ./operator/src
# The code stays owned by root (read-only for the process); only the embedded PostgreSQL's DATA_DIR is writable.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 8080 9464
# The slim image has no curl: the check uses Node's built-in fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, no shell: node itself is PID 1 (the base image's entrypoint execs it), so `docker stop`'s SIGTERM
# reaches the gateway. PID 1 gets no default signal action; the gateway installs its SIGTERM/SIGINT/SIGHUP
# handlers before booting (gateway/src/signals.ts), so a stop during migrations is not dropped either. It then
# drains for up to SHUTDOWN_TIMEOUT_MS (10 s) and stops the embedded PostgreSQL, if any: give the container a
# longer grace period than that (docker stop -t, Kubernetes terminationGracePeriodSeconds).
CMD ["node", "app/cli.ts", "serve"]
