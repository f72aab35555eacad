#!/usr/bin/env bash
# Starts one Cyclium node on Payara Micro with the demo actors on an embedded H2 file database,
# waits until the application itself answers, and prints the console URL.
#   CYCLIUM_PORT (default 8080)   CYCLIUM_HOME (default ./run/quickstart, created)
#   CYCLIUM_SSL_PORT (default CYCLIUM_PORT + 101, so 8181): HTTPS with Micro's self-signed
#                      certificate; /metrics is served only here
#   CYCLIUM_ADMIN_PASSWORD        console password (generated and printed when unset)
#   CYCLIUM_BIND_ADDRESS          address of every listener (default 127.0.0.1: this machine only)
#   CYCLIUM_LOG_BYTES             the log rotates at this size, one old file kept (default 10 MB)
# Stop it with Ctrl-C (SIGTERM to Payara Micro: the node drains its episodes first).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
port=${CYCLIUM_PORT:-8080}
ssl_port=${CYCLIUM_SSL_PORT:-$((port + 101))}
home=${CYCLIUM_HOME:-$top/run/quickstart}
war=$top/cyclium-web/target/cyclium-web-micro.war
payara=$top/cyclium-web/target/payara

command -v java >/dev/null || { echo "java (17 or newer) is needed on PATH" >&2; exit 1; }
command -v mvn >/dev/null || { echo "mvn (Maven 3.8+) is needed on PATH" >&2; exit 1; }

# Build when the WAR is missing or any source is newer than it.
if [ ! -f "$war" ] || [ ! -f "$payara/payara-micro.jar" ] || \
   [ -n "$(find cyclium-ejb/src cyclium-web/src sql -newer "$war" -type f -print -quit 2>/dev/null)" ]; then
  echo "Building Cyclium (first run downloads Payara Micro, about 100 MB)..."
  mvn -q -B -DskipTests package
fi

mkdir -p "$home"
# A local-only database password, generated once and kept beside the database.
if [ ! -f "$home/h2-password" ]; then
  (umask 077; head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' > "$home/h2-password")
fi
export CYCLIUM_H2_FILE="$home/cyclium"
export CYCLIUM_H2_PASSWORD=$(cat "$home/h2-password")
export CYCLIUM_DEMO_ENABLED=${CYCLIUM_DEMO_ENABLED:-true}
export CYCLIUM_NODE_IDENTITY=${CYCLIUM_NODE_IDENTITY:-quickstart-1}
login="the password in CYCLIUM_ADMIN_PASSWORD"
if [ -z "${CYCLIUM_ADMIN_PASSWORD:-}" ]; then
  if [ ! -f "$home/admin-password" ]; then
    (umask 077; head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' > "$home/admin-password")
  fi
  export CYCLIUM_ADMIN_PASSWORD=$(cat "$home/admin-password")
  login="$CYCLIUM_ADMIN_PASSWORD (generated, kept in $home/admin-password)"
fi

# /metrics names every actor and expectation: a user of Payara's file realm may read it, nobody
# else (server-config/payara-micro/postboot-metrics.asadmin). Its password is generated once.
if [ ! -f "$home/metrics-password" ]; then
  (umask 077; head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' > "$home/metrics-password")
fi
metrics_password=$(cat "$home/metrics-password")
(umask 077; printf 'AS_ADMIN_USERPASSWORD=%s\n' "$metrics_password" > "$home/metrics-password.asadmin")
export CYCLIUM_METRICS_PASSWORD_FILE="$home/metrics-password.asadmin"
# Micro takes one post-boot file: the database's, then the metrics lock.
cat "$top/server-config/payara-micro/postboot-h2.asadmin" "$top/server-config/payara-micro/postboot-metrics.asadmin" \
  > "$home/postboot.asadmin"

log="$home/payara-micro.log"
log_bytes=${CYCLIUM_LOG_BYTES:-10485760}
case "$log_bytes" in ''|*[!0-9]*) echo "CYCLIUM_LOG_BYTES=$log_bytes is not a number of bytes" >&2; exit 2;; esac
export CYCLIUM_BIND_ADDRESS=${CYCLIUM_BIND_ADDRESS:-127.0.0.1}
: > "$log"
# The console output goes to $log, which rotates to $log.1 at $log_bytes: a runaway loop cannot
# fill the disk (at most twice the cap). Every line is flushed, so the log can be followed live.
rotate() {
  awk -v f="$log" -v cap="$log_bytes" '{ print > f; fflush(f); n += length($0) + 1
    if (n >= cap) { close(f); system("mv -f \"" f "\" \"" f ".1\""); n = 0 } }'
}
# Listeners on $CYCLIUM_BIND_ADDRESS: HTTP and Payara's data grid (6900) through the pre-boot file
# and hazelcast.socket.bind.any, the embedded H2's AUTO_SERVER port through h2.bindAddress.
java "-Dh2.bindAddress=$CYCLIUM_BIND_ADDRESS" -Dhazelcast.socket.bind.any=false -jar "$payara/payara-micro.jar" --nocluster --port "$port" \
  --sslport "$ssl_port" --addLibs "$payara/h2.jar" \
  --prebootcommandfile "$top/server-config/payara-micro/preboot.asadmin" \
  --postbootcommandfile "$home/postboot.asadmin" \
  --deploy "$war" > >(rotate) 2>&1 &
pid=$!
stop() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap 'stop; exit 130' INT TERM

# Payara Micro prints "ready" even when the application failed to deploy: ask the application.
probe="http://$CYCLIUM_BIND_ADDRESS:$port/cyclium/api/health"
self="http://$CYCLIUM_BIND_ADDRESS:$port/cyclium/api/nodes/self"
echo "Starting Payara Micro (pid $pid, log $log, rotated at $log_bytes bytes)..."
for _ in $(seq 1 180); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "Payara Micro exited during start-up. Last lines of $log:" >&2; tail -40 "$log" >&2; exit 1
  fi
  if curl -fsS "$probe" >/dev/null 2>&1; then
    cat <<MSG

Cyclium is running: node $(curl -fsS -u "admin:$CYCLIUM_ADMIN_PASSWORD" "$self")
  Console:  http://$CYCLIUM_BIND_ADDRESS:$port/cyclium/
  Log in:   user admin, password $login
  API:      curl -u admin:... http://$CYCLIUM_BIND_ADDRESS:$port/cyclium/api/nodes  (HTTP Basic, same user)
  Metrics:  curl -k -u metrics:$metrics_password https://$CYCLIUM_BIND_ADDRESS:$ssl_port/metrics  (HTTPS only; kept in $home/metrics-password)
  Security: docs/security-hardening.md (what is open, what is protected, what to set before production)
  Data:     H2 file database $CYCLIUM_H2_FILE.mv.db
Press Ctrl-C to stop (the node drains its episodes first).
MSG
    wait "$pid"
    exit $?
  fi
  if grep -q "SEVERE" "$log" && grep -qiE "Exception while (loading|deploying)|deployment failed|Error occurred during deployment" "$log"; then
    echo "The application failed to deploy. Errors from $log:" >&2; grep -A5 SEVERE "$log" | head -60 >&2; stop; exit 1
  fi
  sleep 1
done
echo "The application did not answer $probe within 180 s. Last lines of $log:" >&2
tail -40 "$log" >&2; stop; exit 1
