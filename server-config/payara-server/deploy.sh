#!/usr/bin/env bash
# Deploys (or redeploys) the EAR to the running domain, then waits until the application answers.
#   PAYARA_HOME, CYCLIUM_DOMAIN, CYCLIUM_PORT_BASE, CYCLIUM_BIND_ADDRESS  as for create-domain.sh
#   CYCLIUM_EAR   the EAR (default: cyclium-ear/target/cyclium.ear of this checkout)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
ear=${CYCLIUM_EAR:-$here/../../cyclium-ear/target/cyclium.ear}
[ -f "$ear" ] || fail "no EAR at $ear (mvn -B package, or set CYCLIUM_EAR)"
remote deploy --force=true --name cyclium "$ear"
# start-domain and deploy return before the application answers: ask it.
for _ in $(seq 1 300); do
  curl -fsS "http://$bind:$http_port/cyclium/api/health" >/dev/null 2>&1 && { echo "Cyclium answers on http://$bind:$http_port/cyclium/"; exit 0; }
  sleep 1
done
fail "http://$bind:$http_port/cyclium/api/health did not answer within 300 s; see $domain_dir/$domain/logs/server.log"
