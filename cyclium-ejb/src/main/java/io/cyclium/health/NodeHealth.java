package io.cyclium.health;

import io.cyclium.runtime.ActorHost;
import io.cyclium.claims.HeartbeatPulse;
import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;

/**
 * What an orchestrator asks a node, answered the same way to MicroProfile Health ({@code
 * /health/ready}, {@code /health/live}) and to {@code /cyclium/api/health?probe=} on servers
 * without it.
 *
 * <p>Ready: the database answers (one round trip, bounded by a query timeout), its schema is at
 * least at the newest migration this build ships, this node's row is registered and not stopped,
 * and the node is not draining — from the moment the drain begins, so a load balancer stops
 * sending work before the node stops taking it. Live: the heartbeat began a tick within five
 * intervals (a stuck heartbeat means this node's leases lapse and it cannot notice); it does not
 * touch the database, so a database outage makes nodes unready, not restarted.
 *
 * <p>The database part of readiness is asked at most once per {@link #DATABASE_ANSWER_TTL} on the
 * injected clock ({@link RecentAnswer}): the probe is open to anyone, and a caller polling it must
 * not be able to keep the shared pool busy. The draining check is read on every call, so a node
 * reports not-ready the moment its drain begins. Who may see the details (the node's name, the
 * schema version) is the caller's business: {@link Report#withoutDetails()} is the anonymous view.
 */
@ApplicationScoped
public class NodeHealth {

    private static final Logger LOG = Logger.getLogger(NodeHealth.class.getName());
    static final int QUERY_TIMEOUT_MS = 2_000;
    static final int STUCK_AFTER_INTERVALS = 5;

    /** One check: its name, whether it passed, and a short reason (no secrets, no stack traces). */
    public record Check(String name, boolean up, String detail) {
    }

    /** A probe's answer: up when every check is. */
    public record Report(boolean up, List<Check> checks) {
        public Report {
            checks = List.copyOf(checks);
        }

        /** The same answer with each check's name and result only: nothing that names this node, its schema or its database. */
        public Report withoutDetails() {
            return new Report(up, checks.stream().map(c -> new Check(c.name(), c.up(), null)).toList());
        }
    }

    /** How long one answer of the database checks is given again. */
    static final Duration DATABASE_ANSWER_TTL = Duration.ofSeconds(1);

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ActorHost host;

    @Inject
    HeartbeatPulse pulse;

    @Resource(lookup = SchemaMigrator.DATASOURCE)
    DataSource dataSource;

    @Inject
    Clock clock;

    private volatile MigrationVersion shipped;

    private RecentAnswer<List<Check>> databaseChecks;

    /**
     * Set by a JVM shutdown hook, the first thing a SIGTERM runs: the server then undeploys the
     * application, and only its @PreDestroy starts the drain. In between, requests still reach the
     * application while its parts are taken down (seen on Payara Micro: a 500, then a 200 with an
     * empty body, before the server's own 503), so readiness says no from the signal on.
     */
    private volatile boolean jvmStopping;
    private Thread onShutdown;

    @PostConstruct
    void init() {
        databaseChecks = new RecentAnswer<>(clock, DATABASE_ANSWER_TTL, this::askDatabase);
        Thread hook = new Thread(() -> jvmStopping = true, "cyclium-not-ready-on-shutdown");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            onShutdown = hook;
        } catch (IllegalStateException | SecurityException e) {
            jvmStopping = e instanceof IllegalStateException; // already shutting down
        }
    }

    /** An undeploy without a JVM shutdown (a redeploy) leaves no hook holding this application's classes. */
    @PreDestroy
    void removeHook() {
        Thread hook = onShutdown;
        onShutdown = null;
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | SecurityException e) {
                // the JVM is shutting down: the hook runs or ran, and goes with the JVM
            }
        }
    }

    public Report readiness() {
        List<Check> checks = new ArrayList<>();
        checks.add(host.draining() ? new Check("not-draining", false, "draining: stopping, takes no new work")
                : jvmStopping ? new Check("not-draining", false, "the server is shutting down: takes no new work")
                : new Check("not-draining", true, "taking work"));
        checks.addAll(databaseChecks.get());
        return new Report(checks.stream().allMatch(Check::up), checks);
    }

    /** The database, the schema version and this node's row: one transaction, two queries. */
    private List<Check> askDatabase() {
        List<Check> checks = new ArrayList<>();
        try {
            Object[] row = tx.inNewTransaction(em -> {
                // Flyway quotes the names it creates: on H2 they are lower case and must be quoted too
                String q = vendor == DatabaseVendor.H2 ? "\"" : "";
                Object version = new NativeSql().sql("SELECT " + q + "version" + q + " FROM " + q + "cyclium_schema_history" + q
                        + " WHERE " + q + "success" + q + " = ").value(Boolean.TRUE).sql(" AND " + q + "version" + q
                        + " IS NOT NULL ORDER BY " + q + "installed_rank" + q + " DESC").query(em)
                        .setHint("jakarta.persistence.query.timeout", QUERY_TIMEOUT_MS).setMaxResults(1)
                        .getResultList().stream().findFirst().orElse(null);
                List<?> node = new NativeSql().sql("SELECT stopped_at FROM cyclium_nodes WHERE node_identity = ")
                        .value(identity.name()).query(em).setHint("jakarta.persistence.query.timeout", QUERY_TIMEOUT_MS)
                        .getResultList();
                return new Object[] {version, node.isEmpty() ? "missing" : node.get(0) == null ? "live" : "stopped"};
            });
            checks.add(new Check("database", true, "reachable"));
            checks.add(schemaCheck(row[0]));
            checks.add(switch ((String) row[1]) {
                case "live" -> new Check("node-registered", true, identity.name());
                case "stopped" -> new Check("node-registered", false, identity.name() + " is marked stopped");
                default -> new Check("node-registered", false, identity.name() + " has no row in cyclium_nodes");
            });
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "Readiness: the database did not answer", e);
            checks.add(new Check("database", false, "unreachable: " + e.getClass().getSimpleName()));
        }
        return checks;
    }

    public Report liveness() {
        Duration limit = config.heartbeatInterval().multipliedBy(STUCK_AFTER_INTERVALS);
        Duration since = pulse.sinceLastBeat();
        boolean up = since.compareTo(limit) <= 0;
        String detail = (pulse.beaten() ? "last tick began " : "no tick yet, started ") + since.toMillis() + " ms ago (limit "
                + limit.toMillis() + " ms)";
        return new Report(up, List.of(new Check("heartbeat", up, detail)));
    }

    private Check schemaCheck(Object current) {
        MigrationVersion expected = shippedVersion();
        if (current == null) {
            return new Check("schema", false, "no migration applied (expected " + expected + ")");
        }
        MigrationVersion at = MigrationVersion.fromVersion(current.toString());
        return at.isAtLeast(expected.getVersion()) ? new Check("schema", true, "at " + at)
                : new Check("schema", false, "at " + at + ", this build needs " + expected);
    }

    /** The newest migration this build ships for the vendor (read off the class path once). */
    private MigrationVersion shippedVersion() {
        MigrationVersion v = shipped;
        if (v == null) {
            MigrationVersion newest = MigrationVersion.EMPTY;
            for (MigrationInfo info : SchemaMigrator.configure(vendor).dataSource(dataSource).load().info().all()) {
                // resolved: shipped in this build (an applied migration of a newer build is not)
                if (info.getVersion() != null && info.getState().isResolved() && info.getVersion().isNewerThan(newest.getVersion())) {
                    newest = info.getVersion();
                }
            }
            v = newest;
            shipped = v;
        }
        return v;
    }
}
