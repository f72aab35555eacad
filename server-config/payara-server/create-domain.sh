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

# Written into domain.xml before the first start, so the domain starts once, as configured (each
# of these used to be an asadmin call on the running domain and then a restart):
# - The cluster is the database: Payara's own data grid stays off (it would look for other
#   domains): what `set-hazelcast-configuration --enabled=false` writes.
# - No JMS: the sed above reaches only default-config's jms-service; server-config has none, and
#   the first start would create one, EMBEDDED, whose broker and proxy listener bind every
#   interface. A DISABLED one is there before that start.
# - The EJB timer service's embedded H2 (jdbc/__TimerPool) opens an AUTO_SERVER port, on every
#   interface unless h2.bindAddress says where; then CYCLIUM_JVM_OPTIONS, one element each.
xml_escape() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
jvm_options="<jvm-options>-Dh2.bindAddress=$(xml_escape "$bind")</jvm-options>"
for option in ${CYCLIUM_JVM_OPTIONS:-}; do
  jvm_options="$jvm_options<jvm-options>$(xml_escape "$option")</jvm-options>"
done
# (the first match of each pattern is in server-config, which comes before default-config)
sed -i -e '0,/<hazelcast-config-specific-configuration>/s//<hazelcast-config-specific-configuration enabled="false">/' \
       -e '0,/<diagnostic-service/s//<jms-service default-jms-host="default_JMS_host" type="DISABLED"><jms-host port="${JMS_PROVIDER_PORT}" name="default_JMS_host" host="localhost"><\/jms-host><\/jms-service>\n&/' \
       -e "0,/<jvm-options>-server<\/jvm-options>/s//&$(printf '%s' "$jvm_options" | sed -e 's/[\/&]/\\&/g')/" "$root/config/domain.xml"
for expected in '<hazelcast-config-specific-configuration enabled="false">' '<jms-service default-jms-host="default_JMS_host" type="DISABLED">' \
                "<jvm-options>-Dh2.bindAddress="; do
  grep -qF -- "$expected" "$root/config/domain.xml" || fail "$root/config/domain.xml: could not write $expected (a Payara Server of another layout?)"
done

"$asadmin" start-domain --domaindir "$domain_dir" "$domain"
echo "Domain $domain running: admin http://$bind:$admin_port, HTTP http://$bind:$http_port"
