#!/usr/bin/env bash
# Points the running domain's jdbc/cyclium at the database and sets Cyclium's properties.
#   PAYARA_HOME, CYCLIUM_DOMAIN, CYCLIUM_PORT_BASE, CYCLIUM_BIND_ADDRESS  as for create-domain.sh
#   CYCLIUM_DB   h2 | postgresql | mariadb                                             required
#   h2:                   CYCLIUM_H2_SERVER (host:port of an H2 TCP server, see docs/deploying/README.md), CYCLIUM_H2_FILE
#                         (absolute path without .mv.db, on that server), CYCLIUM_H2_PASSWORD
#   postgresql, mariadb:  CYCLIUM_DB_HOST CYCLIUM_DB_PORT CYCLIUM_DB_NAME CYCLIUM_DB_USER
#                         CYCLIUM_DB_PASSWORD (may be empty, must be set)
#   CYCLIUM_PROPERTIES    optional file of cyclium.* key=value lines, stored as domain-level
#                         MicroProfile Config properties (no secrets: they land in domain.xml)
#   CYCLIUM_METRICS_PASSWORD_FILE  optional: a file holding AS_ADMIN_USERPASSWORD=<password>; /metrics
#                         is then served over HTTPS only, to the file-realm user "metrics"
#                         (docs/security-hardening.md). Without it /metrics stays open.
# Pools validate a connection at most once a minute (not on every checkout: that is a round trip
# per transaction) and are emptied when the database says a connection is dead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need CYCLIUM_DB

validation=(--isconnectvalidatereq=true --validateatmostonceperiod=60 --failconnection=false
            --steadypoolsize=2 --maxpoolsize=16 --restype=javax.sql.DataSource)
# asadmin property syntax: name=value pairs split at ':'; escape ':' and '=' inside a value with
# a backslash; quote values that may be empty (a pool without a password needs password='').
esc() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/:/\\:/g' -e 's/=/\\=/g'; }
case "$CYCLIUM_DB" in
  h2)
    need CYCLIUM_H2_SERVER CYCLIUM_H2_FILE CYCLIUM_H2_PASSWORD
    # Not an embedded file: H2's JVM shutdown hook would close it while the domain's shutdown runs
    # the drain (DB_CLOSE_ON_EXIT=FALSE cannot be combined with AUTO_SERVER); a TCP server outlives it.
    remote create-jdbc-connection-pool "${validation[@]}" --validationmethod=auto-commit \
      --datasourceclassname=org.h2.jdbcx.JdbcDataSource \
      --property "URL=$(esc "jdbc:h2:tcp://$CYCLIUM_H2_SERVER/$CYCLIUM_H2_FILE"):user=sa:password='$(esc "$CYCLIUM_H2_PASSWORD")'" \
      cyclium-pool ;;
  postgresql)
    need CYCLIUM_DB_HOST CYCLIUM_DB_PORT CYCLIUM_DB_NAME CYCLIUM_DB_USER
    [ -n "${CYCLIUM_DB_PASSWORD+set}" ] || fail "CYCLIUM_DB_PASSWORD must be set (empty is allowed)"
    # bounded waits on every new connection: 30 s for a lock, 60 s idle inside a transaction
    remote create-jdbc-connection-pool "${validation[@]}" --validationmethod=custom-validation \
      --initsql="SELECT set_config('lock_timeout','30s',false),set_config('idle_in_transaction_session_timeout','60s',false)" \
      --validationclassname=org.glassfish.api.jdbc.validation.PostgresConnectionValidation \
      --datasourceclassname=org.postgresql.ds.PGSimpleDataSource \
      --property "serverName=$(esc "$CYCLIUM_DB_HOST"):portNumber=$CYCLIUM_DB_PORT:databaseName=$(esc "$CYCLIUM_DB_NAME"):user='$(esc "$CYCLIUM_DB_USER")':password='$(esc "$CYCLIUM_DB_PASSWORD")'" \
      cyclium-pool ;;
  mariadb)
    need CYCLIUM_DB_HOST CYCLIUM_DB_PORT CYCLIUM_DB_NAME CYCLIUM_DB_USER
    [ -n "${CYCLIUM_DB_PASSWORD+set}" ] || fail "CYCLIUM_DB_PASSWORD must be set (empty is allowed)"
    # READ COMMITTED: MariaDB defaults to REPEATABLE READ, where read-then-decide logic reads a snapshot.
    remote create-jdbc-connection-pool "${validation[@]}" --validationmethod=custom-validation \
      --validationclassname=org.glassfish.api.jdbc.validation.MySQLConnectionValidation \
      --isolationlevel=read-committed --isisolationguaranteed=true \
      --initsql="SET SESSION innodb_lock_wait_timeout=30, SESSION idle_transaction_timeout=60" \
      --datasourceclassname=org.mariadb.jdbc.MariaDbDataSource \
      --property "url=$(esc "jdbc:mariadb://$CYCLIUM_DB_HOST:$CYCLIUM_DB_PORT/$CYCLIUM_DB_NAME"):user='$(esc "$CYCLIUM_DB_USER")':password='$(esc "$CYCLIUM_DB_PASSWORD")'" \
      cyclium-pool ;;
  *) fail "CYCLIUM_DB=$CYCLIUM_DB: expected h2, postgresql or mariadb" ;;
esac
remote create-jdbc-resource --connectionpoolid=cyclium-pool jdbc/cyclium
remote ping-connection-pool cyclium-pool
# The batch runtime's job repository in the Cyclium database too (batch-repository.asadmin): every
# node's retention executions in one place; Payara creates its tables (executioninstancedata, ...)
# at the first job. Not on MariaDB: Payara's batch runtime does not support it (see that file).
if [ "$CYCLIUM_DB" != mariadb ]; then
  remote multimode --file "$here/batch-repository.asadmin"
fi

# Payara's own /openapi documents every resource and parameter of the API to anyone: off (403).
# The application serves its own document at /cyclium/api/openapi to logged-in callers.
remote set-openapi-configuration --enabled=false
# /metrics names every actor, expectation, workflow and event type. With security enabled Payara
# serves it over HTTPS only (plain HTTP: 403), to users of its file realm in the group below.
if [ -n "${CYCLIUM_METRICS_PASSWORD_FILE:-}" ]; then
  [ -f "$CYCLIUM_METRICS_PASSWORD_FILE" ] || fail "CYCLIUM_METRICS_PASSWORD_FILE=$CYCLIUM_METRICS_PASSWORD_FILE is not a file"
  remote set-metrics-configuration --securityenabled=true --roles=cyclium-metrics
  remote --passwordfile "$CYCLIUM_METRICS_PASSWORD_FILE" create-file-user --groups cyclium-metrics metrics
fi

if [ -n "${CYCLIUM_PROPERTIES:-}" ]; then
  [ -f "$CYCLIUM_PROPERTIES" ] || fail "CYCLIUM_PROPERTIES=$CYCLIUM_PROPERTIES is not a file"
  while IFS='=' read -r key value; do
    case "$key" in ''|'#'*) continue;; cyclium.*) ;; *) fail "$CYCLIUM_PROPERTIES: '$key' is not a cyclium.* property";; esac
    remote set-config-property --source=domain --propertyName="$key" --propertyValue="$value"
  done < "$CYCLIUM_PROPERTIES"
fi
