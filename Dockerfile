# herald in a container: multi-stage (dependencies built once, the runtime image without npm's cache
# or build tools), a non-root user, data in a volume, config by environment variables.
#   docker build -t herald .
#   docker run -p 8787:8787 -v herald-data:/data \
#     -e HERALD_HOOK_TOKEN=... -e HERALD_GATEWAY_TOKEN=... -e HERALD_API_KEY=... herald

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# build tools only here: better-sqlite3 compiles when no prebuilt binary matches
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY bin ./bin
# prepare (bin/build.mjs) finds no sources here and skips: the build is the next stage's
RUN npm ci --omit=dev --no-audit --no-fund

# the bundle (dist/): npm ci runs prepare, which bundles src/ and plugins/ with esbuild
FROM deps AS build
COPY tsconfig.json ./
COPY src ./src
COPY plugins ./plugins
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HERALD_CONFIG=/app/deploy/herald.container.json5 \
    HERALD_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY plugins ./plugins
# after src/ and plugins/: bin/herald.mjs runs dist/ only when its build is newer than every source
COPY --from=build /app/dist ./dist
COPY mappings ./mappings
COPY transforms ./transforms
COPY deploy ./deploy
# the image's own user (uid 1000, from the node image), never root; /data is the only place it writes
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/herald.mjs"]
CMD ["serve"]
