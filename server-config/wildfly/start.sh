#!/usr/bin/env bash
# Starts WildFly for Cyclium in the background and waits for the management interface. Export the
# CYCLIUM_* variables first: the datasource and MicroProfile Config read them from the environment.
#   JBOSS_HOME, CYCLIUM_BASE_DIR        as for configure.sh
#   CYCLIUM_BIND_ADDRESS                every listener (default 127.0.0.1)
#   CYCLIUM_PORT_OFFSET                 added to every port (default 0: HTTP 8080, management 9990)
# The server's console output goes to $CYCLIUM_BASE_DIR/log/console.out (truncated at each start;
# the capped server.log beside it is the log to read). Prints the server's process id.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
mkdir -p "$base/log"
nohup "$JBOSS_HOME/bin/standalone.sh" -b "$bind" -bmanagement "$bind" \
  -Djboss.server.base.dir="$base" -Djboss.socket.binding.port-offset="$offset" \
  >"$base/log/console.out" 2>&1 &
echo $! > "$base/wildfly.pid"
for _ in $(seq 1 120); do
  if remote --command=':read-attribute(name=server-state)' 2>/dev/null | grep -q running; then
    echo "WildFly running: pid $(cat "$base/wildfly.pid"), management http://$bind:$management_port, HTTP http://$bind:$http_port"
    exit 0
  fi
  sleep 1
done
fail "WildFly did not start within 120 s; see $base/log/server.log"
