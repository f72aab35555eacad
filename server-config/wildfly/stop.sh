#!/usr/bin/env bash
# Stops WildFly gracefully; Cyclium drains first (running episodes are stamped interrupted).
#   JBOSS_HOME, CYCLIUM_BIND_ADDRESS, CYCLIUM_PORT_OFFSET   as for start.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
remote --command=":shutdown"
