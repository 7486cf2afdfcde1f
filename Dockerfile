# The gateway as a container: Node 24, production dependencies only, non-root.
# Build: docker build -t vmw-graphql-gateway .   Run: see deploy/ and
# docs/operations.md, "Running in production".

# 1. Production dependencies only (no dev tools, no install scripts).
FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# 2. The runtime: Node runs the TypeScript sources itself (type stripping).
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY --from=dependencies --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root src ./src
COPY --chown=root:root simulators ./simulators
COPY --chown=root:root schema ./schema
COPY --chown=root:root examples ./examples
# The image's files stay root-owned and read-only to the process.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "--expose-gc", "--max-semi-space-size=16", "--heap-growing-percent=50", "src/main.ts"]
