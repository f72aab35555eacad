#!/usr/bin/env bash
# Starts one Cyclium node on Payara Micro with the demo actors on an embedded H2 file database,
# waits until the application itself answers, and prints the console URL.
#   CYCLIUM_PORT (default 8080)   CYCLIUM_HOME (default ./run/quickstart, created)
#   CYCLIUM_ADMIN_PASSWORD        console password (generated and printed when unset)
# Stop it with Ctrl-C (SIGTERM to Payara Micro: the node drains its episodes first).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
port=${CYCLIUM_PORT:-8080}
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

log="$home/payara-micro.log"
: > "$log"
java -jar "$payara/payara-micro.jar" --nocluster --port "$port" \
  --addLibs "$payara/h2.jar" \
  --postbootcommandfile "$top/server-config/payara-micro/postboot-h2.asadmin" \
  --deploy "$war" >>"$log" 2>&1 &
pid=$!
stop() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap 'stop; exit 130' INT TERM

# Payara Micro prints "ready" even when the application failed to deploy: ask the application.
probe="http://localhost:$port/cyclium/api/health"
self="http://localhost:$port/cyclium/api/nodes/self"
echo "Starting Payara Micro (pid $pid, log $log)..."
for _ in $(seq 1 180); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "Payara Micro exited during start-up. Last lines of $log:" >&2; tail -40 "$log" >&2; exit 1
  fi
  if curl -fsS "$probe" >/dev/null 2>&1; then
    cat <<MSG

Cyclium is running: node $(curl -fsS -u "admin:$CYCLIUM_ADMIN_PASSWORD" "$self")
  Console:  http://localhost:$port/cyclium/
  Log in:   user admin, password $login
  API:      curl -u admin:... http://localhost:$port/cyclium/api/nodes  (HTTP Basic, same user)
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
