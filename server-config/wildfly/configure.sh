#!/usr/bin/env bash
# Configures a stopped WildFly 38 for Cyclium, offline (embedded CLI), in the server base folder:
# JDBC driver module, datasource java:/jdbc/cyclium, JBeret's JDBC job repository on it
# (batch-repository.cli), Jakarta Security on the `other` domain, EclipseLink and Cyclium
# properties, a capped server log, metrics (Micrometer's Prometheus registry at /metrics on the
# management interface).
#   JBOSS_HOME           the unpacked WildFly (folder with bin/jboss-cli.sh)            required
#   CYCLIUM_DB           h2 | postgresql | mariadb                                     required
#   CYCLIUM_DRIVER_JAR   the JDBC driver jar (postgresql, mariadb; H2 is WildFly's own module)
#   CYCLIUM_BASE_DIR     server base folder (default $JBOSS_HOME/standalone; another folder
#                        is created as a copy of it, for a second instance on one machine)
#   CYCLIUM_PROPERTIES   optional file of cyclium.* key=value lines, stored as system
#                        properties in standalone.xml (no secrets)
#   CYCLIUM_METRICS_PASSWORD_FILE  optional: a file holding AS_ADMIN_USERPASSWORD=<password> (the
#                        same file as for Payara); /metrics then answers only the management user
#                        "metrics" (HTTP Digest). Without it /metrics stays open on the management
#                        interface (docs/security-hardening.md).
# The database coordinates are NOT written here: the datasource reads them when the server
# starts, from the environment (${env.X} expressions), so secrets stay out of standalone.xml:
#   h2:                  CYCLIUM_H2_SERVER (host:port of an H2 TCP server, see docs/deploying/README.md), CYCLIUM_H2_FILE
#                        (absolute path without .mv.db, on that server), CYCLIUM_H2_PASSWORD
#   postgresql, mariadb: CYCLIUM_DB_HOST CYCLIUM_DB_PORT CYCLIUM_DB_NAME CYCLIUM_DB_USER CYCLIUM_DB_PASSWORD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need CYCLIUM_DB
# One configure at a time per installation: the driver module is added to $JBOSS_HOME/modules, and
# two instances configured side by side both found it missing and the second `module add` failed.
exec 9>"$JBOSS_HOME/.cyclium-configure.lock"
flock 9
if [ ! -d "$base" ]; then
  cp -r "$JBOSS_HOME/standalone" "$base"
  rm -rf "$base"/{data,log,tmp,deployments/*.ear*}
fi

# Validation: in the background once a minute and when the driver reports a fatal error, never a
# round trip per checkout (validate-on-match would cost one per transaction).
validation="--min-pool-size=2 --max-pool-size=16 --background-validation=true --background-validation-millis=60000 --validate-on-match=false"
module_for() { # name, jar: a module of the driver jar (once per WildFly installation)
  local dir="$JBOSS_HOME/modules/${1//.//}/main"
  [ -f "$dir/module.xml" ] || echo "module add --name=$1 --resources=$2 --dependencies=java.se,jakarta.transaction.api"
}
# WildFly refuses an empty password attribute: a database without a password (CYCLIUM_DB_PASSWORD
# set and empty when this script runs) gets none; otherwise the server reads it at start.
password="--password=\${env.CYCLIUM_DB_PASSWORD}"
[ -n "${CYCLIUM_DB_PASSWORD+set}" ] && [ -z "$CYCLIUM_DB_PASSWORD" ] && password=""
case "$CYCLIUM_DB" in
  h2)
    driver="" # WildFly's own com.h2database.h2 module and `h2` driver (2.2.224, as the tests use)
    # Not an embedded file: H2's JVM shutdown hook would close it while WildFly's shutdown runs the
    # drain (DB_CLOSE_ON_EXIT=FALSE cannot be combined with AUTO_SERVER); a TCP server outlives it.
    datasource="data-source add --name=cyclium --jndi-name=java:/jdbc/cyclium --driver-name=h2 \
      --connection-url=\"jdbc:h2:tcp://\${env.CYCLIUM_H2_SERVER}/\${env.CYCLIUM_H2_FILE}\" --user-name=sa \
      --password=\${env.CYCLIUM_H2_PASSWORD} --check-valid-connection-sql=\"SELECT 1\" $validation" ;;
  postgresql)
    need CYCLIUM_DRIVER_JAR
    driver="$(module_for io.cyclium.jdbc.postgresql "$CYCLIUM_DRIVER_JAR")
/subsystem=datasources/jdbc-driver=cyclium-postgresql:add(driver-name=cyclium-postgresql,driver-module-name=io.cyclium.jdbc.postgresql,driver-class-name=org.postgresql.Driver)"
    datasource="data-source add --name=cyclium --jndi-name=java:/jdbc/cyclium --driver-name=cyclium-postgresql \
      --connection-url=jdbc:postgresql://\${env.CYCLIUM_DB_HOST}:\${env.CYCLIUM_DB_PORT}/\${env.CYCLIUM_DB_NAME} \
      --user-name=\${env.CYCLIUM_DB_USER} $password $validation \
      --valid-connection-checker-class-name=org.jboss.jca.adapters.jdbc.extensions.postgres.PostgreSQLValidConnectionChecker \
      --exception-sorter-class-name=org.jboss.jca.adapters.jdbc.extensions.postgres.PostgreSQLExceptionSorter \
      --new-connection-sql=\"SELECT set_config('lock_timeout','30s',false),set_config('idle_in_transaction_session_timeout','60s',false)\"" ;;
  mariadb)
    need CYCLIUM_DRIVER_JAR
    driver="$(module_for io.cyclium.jdbc.mariadb "$CYCLIUM_DRIVER_JAR")
/subsystem=datasources/jdbc-driver=cyclium-mariadb:add(driver-name=cyclium-mariadb,driver-module-name=io.cyclium.jdbc.mariadb,driver-class-name=org.mariadb.jdbc.Driver)"
    # READ COMMITTED: MariaDB defaults to REPEATABLE READ, where read-then-decide logic reads a snapshot.
    datasource="data-source add --name=cyclium --jndi-name=java:/jdbc/cyclium --driver-name=cyclium-mariadb \
      --connection-url=jdbc:mariadb://\${env.CYCLIUM_DB_HOST}:\${env.CYCLIUM_DB_PORT}/\${env.CYCLIUM_DB_NAME} \
      --user-name=\${env.CYCLIUM_DB_USER} $password $validation \
      --transaction-isolation=TRANSACTION_READ_COMMITTED \
      --valid-connection-checker-class-name=org.jboss.jca.adapters.jdbc.extensions.mysql.MySQLValidConnectionChecker \
      --exception-sorter-class-name=org.jboss.jca.adapters.jdbc.extensions.mysql.MySQLExceptionSorter \
      --new-connection-sql=\"SET SESSION innodb_lock_wait_timeout=30, SESSION idle_transaction_timeout=60\"" ;;
  *) fail "CYCLIUM_DB=$CYCLIUM_DB: expected h2, postgresql or mariadb" ;;
esac

properties=""
if [ -n "${CYCLIUM_PROPERTIES:-}" ]; then
  [ -f "$CYCLIUM_PROPERTIES" ] || fail "CYCLIUM_PROPERTIES=$CYCLIUM_PROPERTIES is not a file"
  while IFS='=' read -r key value; do
    case "$key" in ''|'#'*) continue;; cyclium.*) ;; *) fail "$CYCLIUM_PROPERTIES: '$key' is not a cyclium.* property";; esac
    properties+="/system-property=$key:add(value=\"$value\")"$'\n'
  done < "$CYCLIUM_PROPERTIES"
fi

# /metrics names every actor, expectation, workflow and event type. With a password file it is
# for the management user "metrics" only: its line in mgmt-users.properties is the realm's digest
# hash (MD5 of user:ManagementRealm:password, what add-user.sh writes), computed here so that the
# password never appears on a command line.
metrics_secured=false
if [ -n "${CYCLIUM_METRICS_PASSWORD_FILE:-}" ]; then
  [ -f "$CYCLIUM_METRICS_PASSWORD_FILE" ] || fail "CYCLIUM_METRICS_PASSWORD_FILE=$CYCLIUM_METRICS_PASSWORD_FILE is not a file"
  metrics_password=$(sed -n 's/^AS_ADMIN_USERPASSWORD=//p' "$CYCLIUM_METRICS_PASSWORD_FILE" | head -1)
  [ -n "$metrics_password" ] || fail "CYCLIUM_METRICS_PASSWORD_FILE holds no AS_ADMIN_USERPASSWORD=<password> line"
  users="$base/configuration/mgmt-users.properties"
  hash=$(printf '%s' "metrics:ManagementRealm:$metrics_password" | md5sum | cut -d' ' -f1)
  sed -i '/^metrics=/d' "$users"
  echo "metrics=$hash" >> "$users"
  metrics_secured=true
fi
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat > "$script" <<CLI
embed-server --server-config=standalone.xml --std-out=discard
$driver
$datasource
$(grep -v '^#' "$here/batch-repository.cli")
# Jakarta Security (the console's form login, the API's Basic) needs the servlet container's own
# JASPI integration off; without it correct credentials end in ELY01177 (500).
/subsystem=undertow/application-security-domain=other:write-attribute(name=integrated-jaspi,value=false)
# EclipseLink travels in the EAR; WildFly must tell it which transaction manager it runs on.
/system-property=eclipselink.target-server:add(value=JBoss)
$properties
# The server log rotates at 10 MB and keeps 5 files: a runaway loop cannot fill the disk.
/subsystem=logging/size-rotating-file-handler=CAPPED:add(file={relative-to=jboss.server.log.dir,path=server.log},rotate-size=10m,max-backup-index=5,append=true,named-formatter=PATTERN)
/subsystem=logging/root-logger=ROOT:remove-handler(name=FILE)
/subsystem=logging/root-logger=ROOT:add-handler(name=CAPPED)
/subsystem=logging/periodic-rotating-file-handler=FILE:remove
# Metrics: the micrometer subsystem gives deployments a MeterRegistry (Cyclium's MicrometerTelemetry
# writes the same cyclium_* series as on Payara). The base metrics subsystem goes: it holds the
# management interface's /metrics context, and the two would collect the server's metrics twice.
/subsystem=metrics:remove
/extension=org.wildfly.extension.metrics:remove
/extension=org.wildfly.extension.micrometer:add
/subsystem=micrometer:add
# Traces: MicroProfile Telemetry gives deployments an OpenTelemetry (Cyclium's TracingProducer). Off
# until otel.sdk.disabled=false (OTEL_SDK_DISABLED=false in the server's environment); the exporter
# is set the same way (OTEL_EXPORTER_OTLP_ENDPOINT, ...), see docs/observability.md#traces.
/extension=org.wildfly.extension.opentelemetry:add
/subsystem=opentelemetry:add
/extension=org.wildfly.extension.microprofile.telemetry:add
/subsystem=microprofile-telemetry:add
stop-embedded-server
# a second embedded start: /metrics is free only once the removal above has been applied
embed-server --server-config=standalone.xml --std-out=discard
# the management interface listens on CYCLIUM_BIND_ADDRESS only; with a metrics password /metrics
# asks for a management user (the management realm's HTTP Digest), otherwise it is open
/subsystem=micrometer/registry=prometheus:add(context=/metrics,security-enabled=$metrics_secured)
stop-embedded-server
CLI
JAVA_OPTS="${JAVA_OPTS:-} -Djboss.server.base.dir=$base" "$cli" --file="$script"
echo "Configured $base for $CYCLIUM_DB"
