package io.cyclium.episode;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the SQL of debounced triggers: one row per subject, due at {@code fire_at} on the database's
 * clock. An event inside the window replaces the row's trigger and pushes {@code fire_at} (one
 * upsert statement, so two nodes taking events of one subject at once both land); a node that
 * fires a due row deletes it guarded on the version it read, in the transaction that stores the
 * episode: 0 rows means another node fired it first, or a newer event replaced it meanwhile (that
 * one fires when its own window closes).
 */
public class DebouncedTriggerStore {

    static final String TABLE = "cyclium_debounced_triggers";

    private static final String COLUMNS = "id, actor_id, expectation_id, subject, source_stack, source_env, trigger_ref,"
            + " dedupe_key, window_ms, version, fire_at, trace_parent";

    private final DatabaseVendor vendor;

    public DebouncedTriggerStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /** Stores the subject's trigger due one window from now, or replaces the pending one and restarts its window. */
    public void push(EntityManager em, DebouncedTrigger t) {
        long window = t.window().toMillis();
        String now = vendor.utcNow();
        String columns = "(id, actor_id, expectation_id, subject, source_stack, source_env, trigger_ref, dedupe_key,"
                + " window_ms, trace_parent, version, fire_at, inserted_at, updated_at)";
        NativeSql sql = new NativeSql();
        switch (vendor) {
            case POSTGRESQL, MARIADB -> {
                sql.sql("INSERT INTO " + TABLE + " " + columns + " VALUES (");
                values(sql, t, window);
                sql.sql(", 1, ").around(window, this::fireAt).sql(", " + now + ", " + now + ")");
                sql.sql(vendor == DatabaseVendor.POSTGRESQL
                        ? " ON CONFLICT (id) DO UPDATE SET trigger_ref = EXCLUDED.trigger_ref, dedupe_key = EXCLUDED.dedupe_key,"
                                + " window_ms = EXCLUDED.window_ms, trace_parent = EXCLUDED.trace_parent,"
                                + " fire_at = EXCLUDED.fire_at, version = " + TABLE
                                + ".version + 1, updated_at = EXCLUDED.updated_at"
                        : " ON DUPLICATE KEY UPDATE trigger_ref = VALUES(trigger_ref), dedupe_key = VALUES(dedupe_key),"
                                + " window_ms = VALUES(window_ms), trace_parent = VALUES(trace_parent),"
                                + " fire_at = VALUES(fire_at), version = version + 1,"
                                + " updated_at = VALUES(updated_at)");
            }
            // H2's MERGE is no atomic upsert: two merges of one new subject both found no row and both
            // inserted, one failing on the key (seen in DebounceDispatchTest). Update first; if there
            // was no row, insert, a taken key being an answer; then the row is there to update.
            case H2 -> {
                for (int attempt = 0; attempt < 3; attempt++) {
                    NativeSql update = new NativeSql().sql("UPDATE " + TABLE + " SET trigger_ref = ").value(t.trigger().toJson().toString())
                            .sql(", dedupe_key = ").value(t.dedupeKey()).sql(", window_ms = ").value(window)
                            .sql(", trace_parent = ").value(traceParent(t))
                            .sql(", fire_at = ").around(window, this::fireAt).sql(", version = version + 1, updated_at = " + now
                                    + " WHERE id = ").value(t.id());
                    if (update.executeUpdate(em) == 1) {
                        return;
                    }
                    NativeSql insert = new NativeSql().sql("INSERT INTO " + TABLE + " " + columns + " VALUES (");
                    values(insert, t, window);
                    insert.sql(", 1, ").around(window, this::fireAt).sql(", " + now + ", " + now + ")");
                    if (UniqueInsert.insertNaturalKey(em, vendor, insert)) {
                        return;
                    }
                }
                throw new IllegalStateException("debounced trigger " + t.id() + " could be neither inserted nor updated");
            }
            // the standard MERGE; HOLDLOCK keeps two merges of one new subject from both inserting
            case SQLSERVER -> {
                sql.sql("MERGE INTO " + TABLE + " WITH (HOLDLOCK)"
                        + " t USING (VALUES (");
                values(sql, t, window);
                sql.sql(")) AS s (id, actor_id, expectation_id, subject, source_stack, source_env, trigger_ref, dedupe_key,"
                        + " window_ms, trace_parent) ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET trigger_ref = s.trigger_ref, dedupe_key = s.dedupe_key,"
                        + " window_ms = s.window_ms, trace_parent = s.trace_parent, fire_at = " + fireAt("s.window_ms")
                        + ", version = t.version + 1,"
                        + " updated_at = " + now
                        + " WHEN NOT MATCHED THEN INSERT " + columns + " VALUES (s.id, s.actor_id, s.expectation_id,"
                        + " s.subject, s.source_stack, s.source_env, s.trigger_ref, s.dedupe_key, s.window_ms, s.trace_parent, 1, "
                        + fireAt("s.window_ms") + ", " + now + ", " + now + ")" + (vendor == DatabaseVendor.SQLSERVER ? ";" : ""));
            }
            default -> throw new IllegalArgumentException(String.valueOf(vendor));
        }
        sql.executeUpdate(em);
    }

    /** The row's own values, in {@code columns}' order up to trace_parent; an unset stack, env or trace parent is a typed NULL. */
    private static void values(NativeSql sql, DebouncedTrigger t, long window) {
        sql.value(t.id()).sql(", ").value(t.actorId()).sql(", ").value(t.expectationId()).sql(", ").value(t.subject())
                .sql(", ").value(orNull(t.sourceStack())).sql(", ").value(orNull(t.sourceEnv())).sql(", ")
                .value(t.trigger().toJson().toString()).sql(", ").value(t.dedupeKey()).sql(", ").value(window)
                .sql(", ").value(traceParent(t));
    }

    /** The last event's span replaces the earlier one's with the rest of the row (null when tracing is off). */
    private static Object traceParent(DebouncedTrigger t) {
        return t.traceParent() == null ? NativeSql.raw("CAST(NULL AS VARCHAR(55))") : t.traceParent();
    }

    private static Object orNull(String value) {
        return value == null ? NativeSql.raw("CAST(NULL AS VARCHAR(128))") : value;
    }

    /** Rows of this env whose window has closed on the database's clock, oldest first. */
    @SuppressWarnings("unchecked")
    public List<DebouncedTrigger> due(EntityManager em, String env, java.util.Collection<String> actorIds, int limit) {
        if (actorIds.isEmpty()) {
            return List.of();
        }
        // only the actors the caller fires: rows of an actor no node runs any more (undeployed, or
        // disabled here) must not fill every pass's batch and hide the due rows behind them
        NativeSql sql = new NativeSql().sql("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE fire_at <= " + vendor.utcNow()
                + " AND ").is("source_env", env).sql(" AND ").in("actor_id", actorIds).sql(" ORDER BY fire_at, id");
        List<DebouncedTrigger> out = new ArrayList<>();
        for (Object[] r : (List<Object[]>) sql.query(em).setMaxResults(limit).getResultList()) {
            out.add(row(r));
        }
        return out;
    }

    /** Every row of this env, due or not (tests and the console). */
    @SuppressWarnings("unchecked")
    public List<DebouncedTrigger> pending(EntityManager em, String env) {
        NativeSql sql = new NativeSql().sql("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE ").is("source_env", env)
                .sql(" ORDER BY fire_at, id");
        List<DebouncedTrigger> out = new ArrayList<>();
        for (Object[] r : (List<Object[]>) sql.query(em).getResultList()) {
            out.add(row(r));
        }
        return out;
    }

    /**
     * Takes a due row to fire it, in the transaction that stores its episode: 1 = this node fires it;
     * 0 = another node took it first, or an event replaced it after it was read (its new window
     * has not closed). More than one row is a bug (the id is the primary key).
     */
    public int take(EntityManager em, DebouncedTrigger t) {
        int rows = new NativeSql().sql("DELETE FROM " + TABLE + " WHERE ").is("id", t.id()).sql(" AND ")
                .is("version", t.version()).sql(" AND fire_at <= " + vendor.utcNow()).executeUpdate(em);
        if (rows > 1) {
            throw new IllegalStateException(rows + " debounced triggers deleted for subject " + t.id());
        }
        return rows;
    }

    private String fireAt(String millis) {
        return switch (vendor) {
            case H2 -> "DATEADD(MILLISECOND, " + millis + ", " + vendor.utcNow() + ")";
            case POSTGRESQL -> "(" + vendor.utcNow() + " + CAST(" + millis + " AS BIGINT) * INTERVAL '1 millisecond')";
            case MARIADB -> "(" + vendor.utcNow() + " + INTERVAL (" + millis + " * 1000) MICROSECOND)";
            // DATEADD takes no BIGINT: windows up to 24.8 days (INT milliseconds) on SQL Server
            case SQLSERVER -> "DATEADD(MILLISECOND, CAST(" + millis + " AS INT), " + vendor.utcNow() + ")";
            default -> throw new IllegalArgumentException(String.valueOf(vendor));
        };
    }

    private static DebouncedTrigger row(Object[] r) {
        Object t = r[10];
        LocalDateTime fireAt = t instanceof java.sql.Timestamp ts ? ts.toLocalDateTime() : (LocalDateTime) t;
        return new DebouncedTrigger((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4], (String) r[5],
                TriggerInfo.fromJson(JsonText.parseObject(NativeSql.text(r[6]))), (String) r[7],
                Duration.ofMillis(((Number) r[8]).longValue()), ((Number) r[9]).longValue(), fireAt, (String) r[11]);
    }
}
