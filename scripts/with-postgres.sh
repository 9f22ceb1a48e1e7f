#!/usr/bin/env bash
# Runs a command with TEST_POSTGRES_URL pointing at a throwaway PostgreSQL
# cluster (Debian's postgresql package, installed when missing), then stops it.
#   scripts/with-postgres.sh npx vitest run
# The cluster listens on 127.0.0.1 at TEST_POSTGRES_PORT, else on a port the
# OS reports free, so several runs on one machine do not collide.
# Needs root (apt-get, and initdb runs as the postgres user) or an existing
# TEST_POSTGRES_URL, which is used as it is.
set -euo pipefail
if [ -n "${TEST_POSTGRES_URL:-}" ]; then exec "$@"; fi

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bin)" ]; then
  echo "installing PostgreSQL from Debian's packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
bin=$(pg_bin)
dir=$(mktemp -d /tmp/taskbase-pg.XXXXXX)
# Bind port 0, read what the OS gave, release it: free now, and PostgreSQL takes it a moment later.
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
port=${TEST_POSTGRES_PORT:-$(free_port)}
case "$port" in ''|*[!0-9]*) echo "TEST_POSTGRES_PORT must be a port number; got \"$port\"" >&2; exit 1 ;; esac
chown postgres "$dir"
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
as_postgres "'$bin/initdb' -D '$dir/data' -A trust -U postgres" >/dev/null
as_postgres "'$bin/pg_ctl' -D '$dir/data' -l '$dir/log' -w -o \"-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off\" start" >/dev/null
stop() { as_postgres "'$bin/pg_ctl' -D '$dir/data' -m fast stop" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap stop EXIT
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port" "$@"
