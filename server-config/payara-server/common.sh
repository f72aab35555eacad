# Shared by the payara-server scripts: names, ports and the asadmin to use.
fail() { echo "$(basename "$0"): $*" >&2; exit 2; }
need() { for v in "$@"; do [ -n "${!v:-}" ] || fail "$v must be set (see the comment at the top of $(basename "$0"))"; done; }
need PAYARA_HOME
asadmin="$PAYARA_HOME/bin/asadmin"
[ -x "$asadmin" ] || fail "PAYARA_HOME=$PAYARA_HOME has no bin/asadmin"
domain=${CYCLIUM_DOMAIN:-cyclium}
domain_dir=${CYCLIUM_DOMAIN_DIR:-$PAYARA_HOME/glassfish/domains}
port_base=${CYCLIUM_PORT_BASE:-8000}
bind=${CYCLIUM_BIND_ADDRESS:-127.0.0.1}
admin_port=$((port_base + 48))
http_port=$((port_base + 80))
case "$port_base" in ''|*[!0-9]*) fail "CYCLIUM_PORT_BASE=$port_base is not a number";; esac
remote() { "$asadmin" --host "$bind" --port "$admin_port" "$@"; }
