# svc's container image: `svc serve` on port 3000, data under /data (docs/adr/0092-container-image.md).
#
#   DOCKER_BUILDKIT=1 docker build -t svc .
#
# BASE is the Node.js 20 image the stages start from; CI builds with one it makes from Debian's
# packages (scripts/container/base.sh) because it reaches no image registry.
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
# better-sqlite3 is compiled here, never downloaded prebuilt: Python, make and g++ are in this stage
# only, and node-gyp builds against the headers the Node.js image holds (it cannot download them).
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local \
  npm_config_build_from_source=true \
  npm_config_update_notifier=false \
  npm_config_fund=false \
  npm_config_audit=false
WORKDIR /src
# The manifests first: the dependency layer is rebuilt only when one of them changes.
COPY package.json package-lock.json ./
COPY packages/schema/package.json packages/schema/
COPY packages/api/package.json packages/api/
COPY packages/backend/package.json packages/backend/
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY packages/browser/package.json packages/browser/
# Behind a TLS-intercepting proxy, `--secret id=npmca,src=FILE` gives npm the CA bundle it needs;
# the secret is mounted for this step only and is never part of a layer. The repository's own
# `prepare` (the full build) waits for the sources: only the two dependencies whose install
# scripts the server needs run theirs here.
RUN --mount=type=secret,id=npmca \
  if [ -f /run/secrets/npmca ]; then export npm_config_cafile=/run/secrets/npmca; fi \
  && npm ci --ignore-scripts \
  && npm rebuild --foreground-scripts better-sqlite3 esbuild
COPY . .
# The svc command's bundle, the browser bundles and the location table (npm run build:runtime),
# then what `svc serve` reads at run time, and only that, copied to /out.
RUN npm run build:runtime && node scripts/container/runtime-files.mjs /out

FROM ${BASE}
ARG VERSION=3.0.0-alpha.1
LABEL org.opencontainers.image.title="svc" \
  org.opencontainers.image.description="svc: self-hosted consent-management backend" \
  org.opencontainers.image.source="https://github.com/svc-consent/svc" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /out /app
# /data belongs to the user svc runs as, so a new named volume mounted there does too.
RUN ln -s /app/packages/server/bin/svc.js /usr/local/bin/svc \
  && mkdir /data && chown 1000:1000 /data
ENV NODE_ENV=production
USER 1000:1000
# No config file and no option variable: the demo on /data/svc.db (its keys beside it). SVC_CONFIG,
# a svc.config.* mounted in /data, or the SVC_* variables (README, "Run with Docker") configure it.
WORKDIR /data
VOLUME /data
EXPOSE 3000
# Healthy while /health/ready answers 200 (the database reachable, not draining). A config with a
# basePath moves the route: give `docker run --health-cmd` the path then.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["svc"]
CMD ["serve", "--host", "0.0.0.0"]
