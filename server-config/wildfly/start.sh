#!/usr/bin/env bash
# Starts WildFly for Cyclium in the background and waits for the management interface. Export the
# CYCLIUM_* variables first: the datasource and MicroProfile Config read them from the environment.
#   JBOSS_HOME, CYCLIUM_BASE_DIR        as for configure.sh
#   CYCLIUM_BIND_ADDRESS                every listener (default 127.0.0.1)
#   CYCLIUM_PORT_OFFSET                 added to every port (default 0: HTTP 8080, management 9990)
# The server's console output goes to $CYCLIUM_BASE_DIR/log/console.out, cut off after 10 MB (the
# capped, rotated server.log beside it is the log to read); the Java process id to
# $CYCLIUM_BASE_DIR/wildfly.pid.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
mkdir -p "$base/log"
rm -f "$base/wildfly.pid"
from=$(stat -c %s "$base/log/server.log" 2>/dev/null || echo 0)   # only this start's lines count below
export LAUNCH_JBOSS_IN_BACKGROUND=true JBOSS_PIDFILE="$base/wildfly.pid"
(nohup "$JBOSS_HOME/bin/standalone.sh" -b "$bind" -bmanagement "$bind" \
  -Djboss.server.base.dir="$base" -Djboss.socket.binding.port-offset="$offset" 2>&1 \
  | head -c 10000000 > "$base/log/console.out") >/dev/null 2>&1 &
# Bounded by the clock, not by a count of CLI calls (one call takes seconds on a busy machine).
deadline=$((SECONDS + 300))
while [ $SECONDS -lt $deadline ]; do
  state=$(remote --command=':read-attribute(name=server-state)' 2>/dev/null || true)
  if grep -q running <<<"$state"; then
    echo "WildFly running: pid $(cat "$base/wildfly.pid" 2>/dev/null), management http://$bind:$management_port, HTTP http://$bind:$http_port"
    exit 0
  fi
  # a port taken by another process or a broken configuration: say so now instead of waiting
  if tail -c +$((from + 1)) "$base/log/server.log" 2>/dev/null | grep -qE "WFLYSRV0026|BindException|WFLYCTL0080"; then
    tail -c +$((from + 1)) "$base/log/server.log" | grep -E -A3 "WFLYSRV0026|BindException|WFLYCTL0080" | head -20 >&2
    [ -f "$base/wildfly.pid" ] && kill "$(cat "$base/wildfly.pid")" 2>/dev/null
    fail "WildFly started with errors (above); see $base/log/server.log"
  fi
  sleep 2
done
fail "WildFly did not start within 300 s; see $base/log/server.log"
