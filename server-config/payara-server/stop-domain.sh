#!/usr/bin/env bash
# Stops the domain; Cyclium drains first (running episodes are stamped interrupted for the next node).
#   PAYARA_HOME, CYCLIUM_DOMAIN, CYCLIUM_DOMAIN_DIR  as for create-domain.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
"$asadmin" stop-domain --domaindir "$domain_dir" "$domain"
