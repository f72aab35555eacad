#!/usr/bin/env bash
# Adds a user to the running domain's file realm (Payara's default realm) in one of Cyclium's
# groups, for cyclium.security.identity=server (docs/security.md#identity): the realm checks the
# password, the group is the role.
#   PAYARA_HOME, CYCLIUM_DOMAIN, CYCLIUM_PORT_BASE, CYCLIUM_BIND_ADDRESS  as for create-domain.sh
#   CYCLIUM_USER                 the user's name                                            required
#   CYCLIUM_GROUP                cyclium-admin (acts) or cyclium-viewer (reads)             required
#   CYCLIUM_USER_PASSWORD_FILE   a file holding AS_ADMIN_USERPASSWORD=<the user's password>
#                                (and AS_ADMIN_PASSWORD=<admin password> when the domain has one) required
# A user that exists already is updated (new password and group). The file realm takes the change
# at once: no restart.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need CYCLIUM_USER CYCLIUM_GROUP CYCLIUM_USER_PASSWORD_FILE
case "$CYCLIUM_GROUP" in
  cyclium-admin|cyclium-viewer) ;;
  *) fail "CYCLIUM_GROUP=$CYCLIUM_GROUP: expected cyclium-admin or cyclium-viewer" ;;
esac
case "$CYCLIUM_USER" in
  ''|*[!A-Za-z0-9._@-]*) fail "CYCLIUM_USER=$CYCLIUM_USER: allowed are letters, digits and . _ @ -" ;;
esac
[ -f "$CYCLIUM_USER_PASSWORD_FILE" ] || fail "CYCLIUM_USER_PASSWORD_FILE=$CYCLIUM_USER_PASSWORD_FILE is not a file"
grep -q '^AS_ADMIN_USERPASSWORD=' "$CYCLIUM_USER_PASSWORD_FILE" \
  || fail "CYCLIUM_USER_PASSWORD_FILE=$CYCLIUM_USER_PASSWORD_FILE has no line AS_ADMIN_USERPASSWORD=<password>"
if remote --passwordfile "$CYCLIUM_USER_PASSWORD_FILE" list-file-users | grep -qx "$CYCLIUM_USER"; then
  remote --passwordfile "$CYCLIUM_USER_PASSWORD_FILE" update-file-user --groups "$CYCLIUM_GROUP" "$CYCLIUM_USER"
else
  remote --passwordfile "$CYCLIUM_USER_PASSWORD_FILE" create-file-user --groups "$CYCLIUM_GROUP" "$CYCLIUM_USER"
fi
echo "file realm user $CYCLIUM_USER in group $CYCLIUM_GROUP"
