# prospect-sync image (Node 24 LTS). Build: docker build -t prospect-sync .
# Run:   docker run --env-file .env -v $PWD/config:/app/config:ro -p 3000:3000 prospect-sync start   (or worker | scheduler | dashboard)
# The image runs only compiled output (dist/; no TypeScript source is copied, so bin/ never falls back to tsx) with
# production dependencies only. It ships config/prospect-sync.yaml (production: every required variable must be set,
# see docs/configuration.md) and config/demo.yaml; mount your own config over /app/config to use another one.
# The emulators (`emulate`, `demo`) are compiled in but run only when asked for: the compose `emulators` profile.
# test/queue/image-steps.test.ts runs these same steps in a clean directory (no Docker engine needed).

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
RUN npm run build

FROM node:24-slim
ENV NODE_ENV=production
# Listen on every interface inside the container (the dashboard then requires server.auth: DASHBOARD_PASSWORD).
ENV PROSPECT_SYNC_HOST=0.0.0.0
# V8 sizes the young generation from the machine's memory (134 MB on a 24 GB host); 16 MB semi-spaces keep it at
# 34 MB: ~100 MB less RSS per worker at no measured CPU cost (docs/benchmarks.md, "Cost of the worker process").
# An old-generation ceiling far above what a worker holds live makes V8 grow that generation by a smaller factor
# after each collection: a list run's heap stays near what it holds (docs/deployment.md).
ENV NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size=1024"
WORKDIR /app
COPY package.json package-lock.json ./
# The pinned `node` dev dependency exists only for machines whose Node is too old; the image has Node 24 already.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
USER node
EXPOSE 3000
# slim has no curl: Node's own fetch, on the port of the config the process loads (server.port; the shipped config
# reads PROSPECT_SYNC_PORT). Only roles with the HTTP server (start, dashboard) answer it; compose disables it for
# worker and scheduler.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "bin/healthcheck.js"]
ENTRYPOINT ["node", "bin/prospect-sync.js"]
CMD ["start"]
