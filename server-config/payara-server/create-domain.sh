#!/usr/bin/env bash
# Creates a Payara Server domain for Cyclium: every listener on one address, ports from a base,
# the JDBC driver in the domain's lib/, the server log capped, then starts it.
#   PAYARA_HOME          the unpacked Payara Server 6 (folder with bin/asadmin)       required
#   CYCLIUM_DB           h2 | postgresql | mariadb                                    required
#   CYCLIUM_DRIVER_JAR   the JDBC driver jar for CYCLIUM_DB                           required
#   CYCLIUM_DOMAIN       domain name (default cyclium)
#   CYCLIUM_DOMAIN_DIR   folder holding domains (default $PAYARA_HOME/glassfish/domains)
#   CYCLIUM_PORT_BASE    port base (default 8000: HTTP 8080, admin 8048, HTTPS 8081, ...)
#   CYCLIUM_BIND_ADDRESS address of every listener (default 127.0.0.1)
#   CYCLIUM_JVM_OPTIONS  extra JVM options of the domain, space-separated (e.g. "-Xmx2g")
# MicroProfile Config reads CYCLIUM_* environment variables of the shell that runs this script
# (start-domain passes its environment on): export secrets such as CYCLIUM_ADMIN_PASSWORD here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need CYCLIUM_DB CYCLIUM_DRIVER_JAR
[ -f "$CYCLIUM_DRIVER_JAR" ] || fail "CYCLIUM_DRIVER_JAR=$CYCLIUM_DRIVER_JAR is not a file"

"$asadmin" create-domain --nopassword --portbase "$port_base" --domaindir "$domain_dir" "$domain"
root="$domain_dir/$domain"
cp "$CYCLIUM_DRIVER_JAR" "$root/lib/"

# Every listener on the operator's address: the IIOP ones name 0.0.0.0, the HTTP and admin
# listeners name none (all interfaces). The embedded JMS broker (a listener of its own) is off:
# Cyclium does not use JMS.
sed -i -e "s/address=\"0\.0\.0\.0\"/address=\"$bind\"/g" \
       -e "/<network-listener /{/ address=/!s/<network-listener /<network-listener address=\"$bind\" /}" \
       -e 's/<jms-service \(.*\)type="EMBEDDED"/<jms-service \1type="DISABLED"/' "$root/config/domain.xml"
# Server log: rotate at 10 MB, keep 5 files, so a runaway loop cannot fill the disk.
props="$root/config/logging.properties"
sed -i -e 's/^\(com.sun.enterprise.server.logging.GFFileHandler.rotationLimitInBytes\)=.*/\1=10000000/' \
       -e 's/^\(com.sun.enterprise.server.logging.GFFileHandler.maxHistoryFiles\)=.*/\1=5/' "$props"

"$asadmin" start-domain --domaindir "$domain_dir" "$domain"
# The cluster is the database: Payara's own data grid stays off (it would look for other domains).
remote set-hazelcast-configuration --enabled=false --dynamic=true
# No JMS: the sed above reaches only default-config's jms-service (server-config's is created at
# the first start, EMBEDDED), whose broker and proxy listener bind every interface. Off, then a
# restart so nothing of it starts.
remote set configs.config.server-config.jms-service.type=DISABLED
# The EJB timer service's embedded H2 (jdbc/__TimerPool) opens an AUTO_SERVER port, on every
# interface unless h2.bindAddress says where (an IPv4 address here: create-jvm-options splits on ':').
remote create-jvm-options "-Dh2.bindAddress=$bind"
# create-jvm-options splits its operand on ':' (-XX:... must be written -XX\:...)
for option in ${CYCLIUM_JVM_OPTIONS:-}; do
  remote create-jvm-options "$(printf '%s' "$option" | sed 's/:/\\:/g')"
done
"$asadmin" restart-domain --domaindir "$domain_dir" "$domain"
echo "Domain $domain running: admin http://$bind:$admin_port, HTTP http://$bind:$http_port"
