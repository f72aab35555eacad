package io.cyclium.episode;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Owns the SQL of durable sleeps, waits and signals ({@code cyclium_waits}, {@code cyclium_signals}).
 *
 * <p>The guard: a blocked episode that sleeps or waits has one row in {@code cyclium_waits}, and
 * whoever deletes it resolves the wait — the due timer of any node ({@link #releaseDue}), a signal
 * or a matching event ({@link #releaseNamed}), an operator or a cancel ({@link #release}). Each is
 * one DELETE that re-states what it decides on; 0 rows means another node, a signal or the timeout
 * got there first, which is a normal outcome. Due times are on the database clock ({@link DatabaseTime}):
 * a node whose own clock runs ahead cannot wake a sleeper early for the whole cluster.
 *
 * <p>A signal sent while its episode does not wait for that name is kept in {@code cyclium_signals}
 * and handed over, oldest first, when the episode waits for it ({@link #takeSignal}: a locking read
 * and a DELETE by id in the transaction that blocks). Both the sender and the blocking write hold
 * the episode's row first, so a signal is either kept before the wait starts (and taken by it) or
 * finds the wait row (and resolves it) — never neither.
 */
public class WaitStore {

    /** {@code kind} of a sleep's row. */
    public static final String SLEEP = "sleep";
    /** {@code kind} of a wait's row. */
    public static final String WAIT = "wait";
    /** The reference a sleep journals under (its wait_started / wait_resolved rows). */
    public static final String SLEEP_REFERENCE = "sleep";
    /** A signal's target kinds. */
    public static final String EPISODE = "episode";
    public static final String WORKFLOW_INSTANCE = "workflow_instance";

    /** Payloads of kept signals are capped like journal details. */
    public static final int MAX_PAYLOAD_CHARS = EpisodeStore.MAX_DETAIL_CHARS;

    /** Signal names: what a strategy's {@code waitFor} or a workflow step's signal gate names, safe in a URL path. */
    public static final java.util.regex.Pattern SIGNAL_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,254}");

    /** {@code name} when it is a valid signal name; a 400 naming {@code field} otherwise. */
    public static String checkSignalName(String name, String field) {
        if (name == null || !SIGNAL_NAME.matcher(name).matches()) {
            throw io.cyclium.problem.Problem.invalid(field, "a signal name is 1 to 255 letters, digits, '.', '_', ':' or '-',"
                    + " starting with a letter or digit; was \"" + (name == null ? "" : name.length() > 64
                    ? name.substring(0, 64) + "…" : name) + "\"");
        }
        return name;
    }

    private final DatabaseTime time;
    private final WaitAlarm alarm;

    public WaitStore(DatabaseTime time) {
        this(time, new WaitAlarm());
    }

    public WaitStore(DatabaseVendor vendor) {
        this(DatabaseTime.of(vendor));
    }

    private WaitStore(DatabaseTime time, WaitAlarm alarm) {
        this.time = time;
        this.alarm = alarm;
    }

    /** The same store, telling {@code other} when an episode blocked through it is due. */
    public WaitStore withAlarm(WaitAlarm other) {
        return new WaitStore(time, other);
    }

    /** The alarm a task sets once its sleep or timed wait is committed (a private one nobody reads by default). */
    public WaitAlarm alarm() {
        return alarm;
    }

    public DatabaseVendor vendor() {
        return time.vendor();
    }

    /** A sleeping or waiting episode as its row says. {@code wakeAt}: when it is due (null: a wait without timeout). */
    public record WaitRow(String episodeId, String actorId, String expectationId, String kind, String name, String key,
            Instant wakeAt, Instant since) {

        public boolean sleep() {
            return SLEEP.equals(kind);
        }
    }

    /** A signal kept for an episode or instance that does not wait for it yet. */
    public record KeptSignal(String id, String name, JsonValue payload, String sentBy, Instant sentAt) {
    }

    /**
     * The wait row of an episode that blocks now, in the transaction that blocks it (after its row).
     * {@code wakeInMillis} (from now on the database clock) or {@code wakeAt}; both null: no due time.
     */
    public void register(EntityManager em, EpisodeRef ref, String kind, String name, String key, Long wakeInMillis,
            Instant wakeAt) {
        NativeSql sql = new NativeSql().sql("INSERT INTO cyclium_waits (episode_id, actor_id, expectation_id, source_env, kind,"
                        + " name, wait_key, wake_at, created_at) VALUES (").value(ref.id()).sql(", ").value(ref.actorId())
                .sql(", ").value(ref.expectationId()).sql(", ").value(orNull(ref.sourceEnv())).sql(", ").value(kind)
                .sql(", ").value(name).sql(", ").value(orNull(key)).sql(", ");
        if (wakeInMillis != null) {
            time.plusMillis(sql, wakeInMillis);
        } else if (wakeAt != null) {
            sql.value(Timestamp.valueOf(LocalDateTime.ofInstant(wakeAt, ZoneOffset.UTC)));
        } else {
            sql.sql("NULL");
        }
        time.now(sql.sql(", ")).sql(")").executeUpdate(em);
    }

    /**
     * The episode's status, its row held for the rest of the transaction (the lock a blocking write
     * takes with its UPDATE): a signal that found no wait row looks again under it. Empty: no such episode.
     */
    public Optional<String> lockEpisode(EntityManager em, String episodeId) {
        boolean sqlServer = time.vendor() == DatabaseVendor.SQLSERVER;
        List<?> rows = new NativeSql().sql("SELECT status FROM cyclium_episodes" + (sqlServer ? " WITH (UPDLOCK, ROWLOCK)" : "")
                + " WHERE id = ").value(episodeId).sql(sqlServer ? "" : " FOR UPDATE").query(em).getResultList();
        return rows.stream().findFirst().map(String.class::cast);
    }

    /** The guard of the due timer: 1 when this caller took the due sleeper or timed-out wait, 0 when another did. */
    public boolean releaseDue(EntityManager em, String episodeId) {
        return time.now(new NativeSql().sql("DELETE FROM cyclium_waits WHERE episode_id = ").value(episodeId)
                .sql(" AND wake_at <= ")).executeUpdate(em) == 1;
    }

    /** The guard of a signal or an event: 1 when the episode waited for {@code name} and this caller resolved it. */
    public boolean releaseNamed(EntityManager em, String episodeId, String name) {
        return new NativeSql().sql("DELETE FROM cyclium_waits WHERE episode_id = ").value(episodeId)
                .sql(" AND kind = '" + WAIT + "' AND name = ").value(name).executeUpdate(em) == 1;
    }

    /** The guard of an operator's resolve or a cancel: whatever the episode waits for. */
    public boolean release(EntityManager em, String episodeId) {
        return new NativeSql().sql("DELETE FROM cyclium_waits WHERE episode_id = ").value(episodeId).executeUpdate(em) == 1;
    }

    public Optional<WaitRow> find(EntityManager em, String episodeId) {
        List<?> rows = new NativeSql().sql("SELECT " + COLUMNS + " FROM cyclium_waits WHERE episode_id = ").value(episodeId)
                .query(em).getResultList();
        return rows.stream().findFirst().map(r -> row((Object[]) r));
    }

    /**
     * Due sleepers and timed-out waits of {@code env} (null: episodes without one), soonest first:
     * what every due pass resolves (a range of the due-time index). Empty on an idle cluster, where
     * it reads an empty index range.
     */
    @SuppressWarnings("unchecked")
    public List<WaitRow> due(EntityManager em, String env, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT " + COLUMNS + " FROM cyclium_waits WHERE wake_at <= ");
        time.now(sql).sql(" AND ").is("source_env", env).sql(" ORDER BY wake_at");
        List<Object[]> rows = sql.query(em).setMaxResults(limit).getResultList();
        return rows.stream().map(WaitStore::row).toList();
    }

    /** The episodes waiting for {@code name} with {@code key} (what an event of that type and key resolves). */
    @SuppressWarnings("unchecked")
    public List<WaitRow> keyed(EntityManager em, String name, String key, int limit) {
        List<Object[]> rows = new NativeSql().sql("SELECT " + COLUMNS + " FROM cyclium_waits WHERE name = ").value(name)
                .sql(" AND wait_key = ").value(key).sql(" AND kind = '" + WAIT + "' ORDER BY created_at")
                .query(em).setMaxResults(limit).getResultList();
        return rows.stream().map(WaitStore::row).toList();
    }

    /**
     * How many episodes of an env sleep, how many wait, how many of either are due now, and when the
     * next one not yet due is due (null: none has a due time ahead), on the database's clock.
     */
    public record Census(long sleeping, long waiting, long due, java.time.Duration nextDueIn) {
    }

    /**
     * The sweep's due pass's first statement: the sleepers and waiters of {@code env} (null:
     * episodes without one), how many are due, and how far off the next due time is, in one grouped
     * read of the (small) wait table. Only when some are due does the pass read them ({@link #due}).
     * On an idle cluster the table is empty and this reads nothing.
     */
    public Census census(EntityManager em, String env) {
        NativeSql sql = new NativeSql().sql("SELECT kind, COUNT(*), SUM(CASE WHEN wake_at <= ");
        time.now(sql).sql(" THEN 1 ELSE 0 END), MAX(CASE WHEN wake_at > ");
        // the milliseconds since a due time still ahead are negative: the largest is the soonest
        time.now(sql).sql(" THEN ");
        time.millisSince(sql, "wake_at").sql(" END) FROM cyclium_waits WHERE ").is("source_env", env).sql(" GROUP BY kind");
        long sleeping = 0;
        long waiting = 0;
        long due = 0;
        Long next = null;
        for (Object r : sql.query(em).getResultList()) {
            Object[] a = (Object[]) r;
            long n = ((Number) a[1]).longValue();
            if (SLEEP.equals(a[0])) {
                sleeping += n;
            } else {
                waiting += n;
            }
            due += a[2] == null ? 0 : ((Number) a[2]).longValue();
            if (a[3] != null) {
                long in = -((Number) a[3]).longValue();
                next = next == null ? in : Math.min(next, in);
            }
        }
        return new Census(sleeping, waiting, due, next == null ? null : java.time.Duration.ofMillis(Math.max(0, next)));
    }

    /**
     * How far off the next due time of {@code env} still ahead is (null: none), on the database's
     * clock: the first row of the due-time index past now.
     */
    public java.time.Duration nextDueIn(EntityManager em, String env) {
        NativeSql sql = new NativeSql().sql("SELECT ");
        // the milliseconds since a due time still ahead are negative
        time.millisSince(sql, "wake_at").sql(" FROM cyclium_waits WHERE wake_at > ");
        time.now(sql).sql(" AND ").is("source_env", env).sql(" ORDER BY wake_at");
        List<?> rows = sql.query(em).setMaxResults(1).getResultList();
        return rows.isEmpty() || rows.get(0) == null ? null
                : java.time.Duration.ofMillis(Math.max(0, -((Number) rows.get(0)).longValue()));
    }

    /**
     * A scalar sub-select other periodic statements carry (the workflow pulse): the earliest due
     * time of any sleeper or timed wait in the cluster, null when none has one.
     */
    public static final String EARLIEST_DUE = "(SELECT MIN(wake_at) FROM cyclium_waits)";

    /** The column a signal's target is in: its episode's or its workflow instance's id. */
    private static String targetColumn(String targetKind) {
        return switch (targetKind) {
            case EPISODE -> "episode_id";
            case WORKFLOW_INSTANCE -> "instance_id";
            default -> throw new IllegalArgumentException("no signal target kind " + targetKind);
        };
    }

    /** Keeps a signal for {@code targetId} (an episode until it waits for {@code name}; an instance as its record). */
    public String keepSignal(EntityManager em, String targetKind, String targetId, String name, JsonValue payload, String by) {
        String id = UUID.randomUUID().toString();
        time.now(new NativeSql().sql("INSERT INTO cyclium_signals (id, " + targetColumn(targetKind) + ", name, payload, sent_by,"
                        + " created_at) VALUES (").value(id).sql(", ").value(targetId).sql(", ").value(name)
                .sql(", ").value(orNull(EpisodeStore.cap(payload))).sql(", ").value(orNull(by)).sql(", "))
                .sql(")").executeUpdate(em);
        return id;
    }

    /**
     * Takes the oldest signal kept for {@code targetId} under {@code name}: a locking read, then a
     * DELETE by its id (1 row: this caller has it). Empty when none is kept.
     */
    public Optional<KeptSignal> takeSignal(EntityManager em, String targetKind, String targetId, String name) {
        boolean sqlServer = time.vendor() == DatabaseVendor.SQLSERVER;
        List<?> rows = new NativeSql().sql("SELECT id, name, payload, sent_by, created_at FROM cyclium_signals"
                        + (sqlServer ? " WITH (UPDLOCK, ROWLOCK)" : "") + " WHERE " + targetColumn(targetKind) + " = ")
                .value(targetId).sql(" AND name = ").value(name)
                .sql(" ORDER BY created_at, id ").around(1, time.vendor()::firstRows)
                // the limit in the text, before FOR UPDATE (MariaDB's order; a row limit the JPA
                // provider appended would follow it)
                .sql(sqlServer ? "" : " FOR UPDATE").query(em).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        KeptSignal s = signal((Object[]) rows.get(0));
        int taken = new NativeSql().sql("DELETE FROM cyclium_signals WHERE id = ").value(s.id()).executeUpdate(em);
        return taken == 1 ? Optional.of(s) : Optional.empty();
    }

    /** The signals kept for episode {@code episodeId}, oldest first (its detail view). */
    @SuppressWarnings("unchecked")
    public List<KeptSignal> kept(EntityManager em, String episodeId, int limit) {
        List<Object[]> rows = new NativeSql().sql("SELECT id, name, payload, sent_by, created_at FROM cyclium_signals"
                        + " WHERE episode_id = ").value(episodeId).sql(" ORDER BY created_at, id")
                .query(em).setMaxResults(limit).getResultList();
        List<KeptSignal> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(signal(r));
        }
        return out;
    }

    private static final String COLUMNS = "episode_id, actor_id, expectation_id, kind, name, wait_key, wake_at, created_at";

    private static WaitRow row(Object[] r) {
        return new WaitRow((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4], (String) r[5],
                instant(r[6]), instant(r[7]));
    }

    private static KeptSignal signal(Object[] r) {
        String text = r[2] == null ? null : NativeSql.text(r[2]);
        JsonValue payload = text == null ? JsonValue.NULL : JsonText.parse(text);
        return new KeptSignal((String) r[0], (String) r[1], payload, (String) r[3], instant(r[4]));
    }

    /** A time column as the driver hands it (Timestamp, LocalDateTime or OffsetDateTime), read as UTC. */
    public static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Timestamp t) {
            return t.toLocalDateTime().toInstant(ZoneOffset.UTC);
        }
        if (value instanceof LocalDateTime l) {
            return l.toInstant(ZoneOffset.UTC);
        }
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        throw new IllegalArgumentException("not a time: " + value.getClass());
    }

    private static Object orNull(Object value) {
        return value == null ? NativeSql.raw("NULL") : value;
    }
}
