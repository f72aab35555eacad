# Shared by the wildfly scripts: names, ports and the jboss-cli to use.
fail() { echo "$(basename "$0"): $*" >&2; exit 2; }
need() { for v in "$@"; do [ -n "${!v:-}" ] || fail "$v must be set (see the comment at the top of $(basename "$0"))"; done; }
need JBOSS_HOME
cli="$JBOSS_HOME/bin/jboss-cli.sh"
[ -x "$cli" ] || fail "JBOSS_HOME=$JBOSS_HOME has no bin/jboss-cli.sh"
base=${CYCLIUM_BASE_DIR:-$JBOSS_HOME/standalone}
bind=${CYCLIUM_BIND_ADDRESS:-127.0.0.1}
offset=${CYCLIUM_PORT_OFFSET:-0}
case "$offset" in ''|*[!0-9]*) fail "CYCLIUM_PORT_OFFSET=$offset is not a number";; esac
http_port=$((8080 + offset))
management_port=$((9990 + offset))
remote() { "$cli" --connect --controller="remote+http://$bind:$management_port" "$@"; }
