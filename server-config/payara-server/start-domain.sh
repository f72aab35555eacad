#!/usr/bin/env bash
# Starts a domain made by create-domain.sh again (after stop-domain.sh). Export the CYCLIUM_*
# variables the node needs first: MicroProfile Config reads the environment start-domain passes on.
#   PAYARA_HOME, CYCLIUM_DOMAIN, CYCLIUM_DOMAIN_DIR  as for create-domain.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
"$asadmin" start-domain --domaindir "$domain_dir" "$domain"
