package io.cyclium.bench;

import io.cyclium.operations.EpisodeCursor;
import io.cyclium.operations.EpisodeFilter;
import io.cyclium.operations.EpisodeListing;
import io.cyclium.operations.EpisodeThroughput;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.NativeSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How the keyset-paged episode list behaves at a million rows: bulk-loads 1,000,000 episodes into
 * a fresh PostgreSQL database and a fresh MariaDB database (named {@code cd_bench_<random>},
 * dropped at the end), then for each filter the API offers times the first page and a deep page
 * (a cursor 90 % of the way through the filter's rows) and prints the plan of each, followed by
 * the dashboard's per-minute throughput query. For comparison, "offset ms" is what the same deep
 * position costs with OFFSET paging (one run: the query that finds the deep cursor). Not a test:
 * run it by hand on a quiet machine (about 5 minutes per database here).
 *
 * <pre>
 * mvn -q -B -o -pl cyclium-ejb test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.cyclium.bench.EpisodeListBenchmark \
 *     [-Dbench.rows=1000000] [-Dbench.vendors=POSTGRESQL,MARIADB] [-Dbench.schema=4]
 * </pre>
 * {@code -Dbench.schema=4} stops the migrations before V5 (the list indexes), to see the plans
 * without them.
 *
 * <p>The data: 20 actors with 3 expectations each (and a rare actor on one row in 2,000),
 * started_at spread over about a month with three episodes on every timestamp (ties the cursor's
 * id must break), about 93 % done, 5 % failed, 1 % canceled, 1 % running; three stacks and none,
 * env prod / staging / none.
 */
public final class EpisodeListBenchmark {

    private static final int PAGE = 50;
    private static final int RUNS = 5;

    private final DatabaseVendor vendor;
    private final Connection c;
    private final EpisodeListing listing;

    private EpisodeListBenchmark(DatabaseVendor vendor, Connection c) {
        this.vendor = vendor;
        this.c = c;
        this.listing = new EpisodeListing(vendor);
    }

    public static void main(String[] args) throws Exception {
        int rows = Integer.getInteger("bench.rows", 1_000_000);
        String schema = System.getProperty("bench.schema", "latest");
        List<DatabaseVendor> vendors = Arrays.stream(System.getProperty("bench.vendors", "POSTGRESQL,MARIADB").split(","))
                .map(String::trim).map(DatabaseVendor::valueOf).toList();
        System.out.printf("episode list benchmark: %,d rows, page %d, median of %d runs, schema %s, %d cores, load %.1f%n",
                rows, PAGE, RUNS, schema, Runtime.getRuntime().availableProcessors(), load());
        for (DatabaseVendor vendor : vendors) {
            try (BenchDatabase db = BenchDatabase.create(vendor, schema); Connection c = db.connect()) {
                new EpisodeListBenchmark(vendor, c).run(rows);
            }
        }
        System.out.printf("load average at the end %.1f (other work on the machine skews every figure)%n", load());
    }

    private void run(int rows) throws SQLException {
        long t0 = System.nanoTime();
        load(rows);
        System.out.printf("%n== %s: loaded %,d episodes in %.1f s%n", vendor, rows, (System.nanoTime() - t0) / 1e9);
        LocalDateTime newest = newest();
        Map<String, EpisodeFilter> filters = new LinkedHashMap<>();
        filters.put("none", EpisodeFilter.ANY);
        filters.put("actor", filter("actor_7", null, null, null, null, null, null));
        filters.put("actor (rare)", filter("actor_rare", null, null, null, null, null, null));
        filters.put("actor+expectation", filter("actor_7", "exp_7_1", null, null, null, null, null));
        filters.put("expectation", filter(null, "exp_7_1", null, null, null, null, null));
        filters.put("status=failed", filter(null, null, "failed", null, null, null, null));
        filters.put("status=running", filter(null, null, "running", null, null, null, null));
        filters.put("stack", filter(null, null, null, "stack_b", null, null, null));
        filters.put("env", filter(null, null, null, null, "staging", null, null));
        filters.put("env unset", filter(null, null, null, null, EpisodeFilter.UNSET, null, null));
        filters.put("time range (1 day)", filter(null, null, null, null, null, newest.minusDays(10), newest.minusDays(9)));
        filters.put("actor+status", filter("actor_7", null, "failed", null, null, null, null));
        System.out.printf("%-20s %10s %12s %12s %14s%n", "filter", "rows", "first ms", "deep ms", "offset ms");
        List<String> plans = new ArrayList<>();
        for (Map.Entry<String, EpisodeFilter> f : filters.entrySet()) {
            long matching = count(f.getValue());
            long t = System.nanoTime();
            EpisodeCursor deep = cursorAt(f.getValue(), (long) (matching * 0.9));
            double offsetMs = (System.nanoTime() - t) / 1e6;
            double first = median(listing.statement(f.getValue(), null, PAGE + 1));
            double deepMs = deep == null ? Double.NaN : median(listing.statement(f.getValue(), deep, PAGE + 1));
            System.out.printf("%-20s %,10d %12.2f %12.2f %14.2f%n", f.getKey(), matching, first, deepMs, offsetMs);
            plans.add("-- " + f.getKey() + ", first page\n" + plan(listing.statement(f.getValue(), null, PAGE + 1)));
            if (deep != null) {
                plans.add("-- " + f.getKey() + ", deep page\n" + plan(listing.statement(f.getValue(), deep, PAGE + 1)));
            }
        }
        LocalDateTime to = newest.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        NativeSql throughput = new EpisodeThroughput(vendor).statement(to.minusMinutes(60), to);
        System.out.printf("%-20s %10s %12.2f%n", "throughput (60 min)", "", median(throughput));
        plans.add("-- throughput, last 60 minutes\n" + plan(throughput));
        System.out.printf("%n-- %s plans%n", vendor);
        plans.forEach(System.out::println);
    }

    private static EpisodeFilter filter(String actor, String exp, String status, String stack, String env,
            LocalDateTime from, LocalDateTime to) {
        return new EpisodeFilter(actor, exp, status, stack, env, from, to);
    }

    /** One INSERT … SELECT over a generated series; the database does all the work. */
    private void load(int rows) throws SQLException {
        String sql;
        if (vendor == DatabaseVendor.POSTGRESQL) {
            sql = "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, status, attempts, max_attempts,"
                    + " source_stack, source_env, summary, started_at, finished_at, updated_at)"
                    + " SELECT gen_random_uuid()::text,"
                    + " CASE WHEN g % 2000 = 0 THEN 'actor_rare' ELSE 'actor_' || (g % 20) END, 'exp_' || (g % 20) || '_' || (g % 3), 'event',"
                    + " CASE WHEN g % 97 < 5 THEN 'failed' WHEN g % 97 = 5 THEN 'canceled' WHEN g % 97 = 6 THEN 'running'"
                    + " ELSE 'done' END, 1, 3,"
                    + " CASE (g / 20) % 4 WHEN 0 THEN NULL WHEN 1 THEN 'stack_a' WHEN 2 THEN 'stack_b' ELSE 'stack_c' END,"
                    + " CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN 'prod' ELSE 'staging' END,"
                    + " 'benchmark row ' || g, s.t, CASE WHEN g % 97 = 6 THEN NULL ELSE s.t + INTERVAL '2 seconds' END, s.t"
                    + " FROM generate_series(1, ?) g"
                    + " CROSS JOIN LATERAL (SELECT (clock_timestamp() AT TIME ZONE 'UTC') - (g / 3) * INTERVAL '7 seconds' AS t) s";
        } else {
            sql = "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, status, attempts, max_attempts,"
                    + " source_stack, source_env, summary, started_at, finished_at, updated_at)"
                    + " SELECT UUID(),"
                    + " CASE WHEN seq % 2000 = 0 THEN 'actor_rare' ELSE CONCAT('actor_', seq % 20) END, CONCAT('exp_', seq % 20, '_', seq % 3), 'event',"
                    + " CASE WHEN seq % 97 < 5 THEN 'failed' WHEN seq % 97 = 5 THEN 'canceled' WHEN seq % 97 = 6 THEN 'running'"
                    + " ELSE 'done' END, 1, 3,"
                    + " CASE (seq DIV 20) % 4 WHEN 0 THEN NULL WHEN 1 THEN 'stack_a' WHEN 2 THEN 'stack_b' ELSE 'stack_c' END,"
                    + " CASE seq % 3 WHEN 0 THEN NULL WHEN 1 THEN 'prod' ELSE 'staging' END,"
                    + " CONCAT('benchmark row ', seq), t, CASE WHEN seq % 97 = 6 THEN NULL ELSE t + INTERVAL 2 SECOND END, t"
                    + " FROM (SELECT seq, UTC_TIMESTAMP(6) - INTERVAL (seq DIV 3) * 7 SECOND AS t FROM seq_1_to_" + rows + ") s";
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (vendor == DatabaseVendor.POSTGRESQL) {
                ps.setInt(1, rows);
            }
            ps.executeUpdate();
        }
        try (Statement s = c.createStatement()) {
            s.execute(vendor == DatabaseVendor.POSTGRESQL ? "VACUUM ANALYZE cyclium_episodes" : "ANALYZE TABLE cyclium_episodes");
        }
    }

    private LocalDateTime newest() throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT MAX(started_at) FROM cyclium_episodes")) {
            rs.next();
            return rs.getTimestamp(1).toLocalDateTime();
        }
    }

    /** Setup only (slow by design): how many rows match. */
    private long count(EpisodeFilter f) throws SQLException {
        NativeSql all = listing.statement(f, null, Integer.MAX_VALUE);
        String text = "SELECT COUNT(*) FROM (" + jdbc(all.text()) + ") x";
        try (PreparedStatement ps = prepare(text, all.parameters()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The cursor of the row at {@code offset} in the filter's order, read the way OFFSET paging
     * would read that page: the list's own statement for one row, with OFFSET added (the caller
     * times this once, for comparison).
     */
    private EpisodeCursor cursorAt(EpisodeFilter f, long offset) throws SQLException {
        NativeSql one = listing.statement(f, null, 1);
        try (PreparedStatement ps = prepare(jdbc(one.text()) + " OFFSET " + offset, one.parameters());
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? new EpisodeCursor(rs.getTimestamp("started_at").toLocalDateTime(), rs.getString("id")) : null;
        }
    }

    private double median(NativeSql sql) throws SQLException {
        double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t = System.nanoTime();
            try (PreparedStatement ps = prepare(jdbc(sql.text()), sql.parameters()); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rs.getString(1);
                }
            }
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return ms[RUNS / 2];
    }

    private String plan(NativeSql sql) throws SQLException {
        String explain = vendor == DatabaseVendor.POSTGRESQL ? "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " : "ANALYZE ";
        StringBuilder out = new StringBuilder();
        try (PreparedStatement ps = prepare(explain + jdbc(sql.text()), sql.parameters()); ResultSet rs = ps.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            if (vendor != DatabaseVendor.POSTGRESQL) {
                out.append("   id select_type table type key rows r_rows filtered r_filtered Extra\n");
            }
            while (rs.next()) {
                if (vendor == DatabaseVendor.POSTGRESQL) {
                    out.append("   ").append(rs.getString(1)).append('\n');
                } else {
                    StringBuilder line = new StringBuilder("  ");
                    for (String col : List.of("id", "select_type", "table", "type", "key", "rows", "r_rows", "filtered",
                            "r_filtered", "Extra")) {
                        line.append(' ').append(rs.getString(col));
                    }
                    out.append(line).append('\n');
                }
            }
            if (columns == 0) {
                out.append("   (no plan)\n");
            }
        }
        return out.toString();
    }

    private PreparedStatement prepare(String text, List<Object> parameters) throws SQLException {
        PreparedStatement ps = c.prepareStatement(text);
        for (int i = 0; i < parameters.size(); i++) {
            ps.setObject(i + 1, parameters.get(i));
        }
        return ps;
    }

    /** NativeSql numbers its parameters in the order they appear (?1, ?2, …): JDBC wants plain ?. */
    private static String jdbc(String nativeSql) {
        return nativeSql.replaceAll("\\?\\d+", "?");
    }

    private static double load() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** A fresh database of its own on the local server, migrated with the shipped files, dropped on close. */
    private record BenchDatabase(DatabaseVendor vendor, String name, String url, String user) implements AutoCloseable {

        static BenchDatabase create(DatabaseVendor vendor, String schemaVersion) throws SQLException {
            String name = "cd_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            BenchDatabase db = vendor == DatabaseVendor.POSTGRESQL
                    ? new BenchDatabase(vendor, name, "jdbc:postgresql://127.0.0.1:5432/" + name, "postgres")
                    : new BenchDatabase(vendor, name, "jdbc:mariadb://127.0.0.1:3306/" + name
                            + "?transactionIsolation=READ_COMMITTED", "root");
            db.admin(vendor == DatabaseVendor.POSTGRESQL ? "CREATE DATABASE " + name
                    : "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
            var flyway = SchemaMigrator.configure(vendor).dataSource(db.url, db.user, "");
            if (!"latest".equals(schemaVersion)) {
                flyway.target(schemaVersion);
            }
            flyway.load().migrate();
            return db;
        }

        Connection connect() throws SQLException {
            return DriverManager.getConnection(url, user, "");
        }

        void admin(String sql) throws SQLException {
            String adminUrl = vendor == DatabaseVendor.POSTGRESQL ? "jdbc:postgresql://127.0.0.1:5432/test"
                    : "jdbc:mariadb://127.0.0.1:3306/";
            try (Connection c = DriverManager.getConnection(adminUrl, user, ""); Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }

        @Override
        public void close() throws SQLException {
            admin(vendor == DatabaseVendor.POSTGRESQL ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
                    : "DROP DATABASE IF EXISTS " + name);
        }
    }
}
