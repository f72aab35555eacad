package io.cyclium.finding;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.TypedQuery;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Owns every write on {@code cyclium_findings}, and the reads those writes need (the read side
 * for pages and the API is {@link FindingQueries}).
 *
 * <p>The invariant: at most one {@code active} row per (finding key, env), and likewise one
 * {@code cleared} row; the unique index on (finding_key, status, env) among rows that are not
 * {@code superseded} enforces both. env NULL is the unset env and only matches itself. All times
 * come from the database's UTC clock, so nodes with drifting clocks agree on expiry.
 *
 * <p>Every method runs inside the caller's transaction and leaves it usable: losing a race is an
 * outcome, not an exception.
 */
public final class FindingStore {

    /** The reason the expiry sweep records on the findings it clears. */
    public static final String EXPIRED = "expired";

    private static final int MAX_KEY = 512;
    private static final int MAX_ENV = 128;
    private static final int RAISE_ATTEMPTS = 3;
    private static final String REFRESH = "eclipselink.refresh";

    private final DatabaseVendor vendor;

    public FindingStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /**
     * Applies one action. The env is the action's own when given, else the episode's source env
     * (null: the unset env).
     *
     * @param episode    the episode acting; required to raise (it becomes the raiser), optional
     *                   to update or clear (an operator's clear has none)
     * @param defaultTtl expiry for a raise that names no TTL of its own (null: none)
     */
    public FindingOutcome apply(EntityManager em, FindingAction action, EpisodeRef episode, Duration defaultTtl) {
        Objects.requireNonNull(action, "action");
        if (action instanceof FindingAction.Raise raise) {
            return raise(em, raise, episode, defaultTtl);
        }
        if (action instanceof FindingAction.Update update) {
            return update(em, update, episode);
        }
        return clear(em, (FindingAction.Clear) action, episode);
    }

    // ------------------------------------------------------------------ raise / update / clear

    private FindingOutcome raise(EntityManager em, FindingAction.Raise r, EpisodeRef episode, Duration defaultTtl) {
        Objects.requireNonNull(episode, () -> "raising finding " + r.findingKey() + " needs the raising episode");
        String env = envOf(r.env(), episode);
        checkKey(r.findingKey(), env);
        Integer ttl = ttlSeconds(r.ttl() != null ? r.ttl() : defaultTtl);

        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("finding_class", r.findingClass());
        fields.put("severity", r.severity().wireName());
        fields.put("subject_kind", r.subjectKind());
        fields.put("subject_id", r.subjectId());
        fields.put("summary", r.summary());
        fields.put("evidence", JsonText.write(r.evidence()));
        fields.put("confidence", r.confidence());
        fields.put("caused_by_key", r.causedByKey());
        fields.put("updated_at", NativeSql.raw(vendor.utcNow()));
        fields.put("expires_at", ttl == null ? null : NativeSql.raw(vendor.utcNowPlusSeconds(Integer.toString(ttl))));

        for (int attempt = 1; attempt <= RAISE_ATTEMPTS; attempt++) {
            // Update first: re-raising a live finding is the common case. The UPDATE locks the
            // active row, so a concurrent clear waits for us (or we for it).
            Optional<ActiveRow> refreshed = updateActive(em, r.findingKey(), env, null, fields);
            if (refreshed.isPresent()) {
                return outcome(FindingOutcome.Kind.UPDATED, refreshed.get(), r.findingKey(), env);
            }
            String id = UUID.randomUUID().toString();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", id);
            row.put("finding_key", r.findingKey());
            row.put("env", env);
            row.put("status", "active");
            row.put("actor_id", episode.actorId());
            row.put("expectation_id", episode.expectationId());
            row.put("raised_by_episode_id", episode.id());
            row.put("raised_at", NativeSql.raw(vendor.utcNow()));
            row.putAll(fields);
            if (UniqueInsert.insert(em, vendor, "cyclium_findings", id,
                    new NativeSql().insert("cyclium_findings", row))) {
                return new FindingOutcome(FindingOutcome.Kind.RAISED, id, r.findingKey(), env, r.findingClass(),
                        r.severity());
            }
            // The active slot was taken by a raiser that committed between our UPDATE and our
            // INSERT (the INSERT waited for it). Update the winner's row by its primary key: on
            // MariaDB the INSERT already holds that row's lock, and going through the
            // (finding_key, status) index as well would take a second lock in the opposite order
            // to other losers, which deadlocks. Another round is only needed if the winner's row
            // was cleared again meanwhile (or is not visible yet to an older snapshot).
            Optional<String> winner = activeId(em, r.findingKey(), env);
            if (winner.isPresent()) {
                Optional<ActiveRow> joined = updateActive(em, r.findingKey(), env, winner.get(), fields);
                if (joined.isPresent()) {
                    return outcome(FindingOutcome.Kind.UPDATED, joined.get(), r.findingKey(), env);
                }
            }
        }
        throw new IllegalStateException("finding " + r.findingKey() + " (env " + env + ") was raised and cleared"
                + " by others " + RAISE_ATTEMPTS + " times while this raise ran; giving up, retry the episode");
    }

    private FindingOutcome update(EntityManager em, FindingAction.Update u, EpisodeRef episode) {
        String env = envOf(u.env(), episode);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("severity", u.severity() == null ? null : u.severity().wireName());
        fields.put("summary", u.summary());
        fields.put("evidence", JsonText.write(u.evidence()));
        fields.put("confidence", u.confidence());
        fields.put("updated_at", NativeSql.raw(vendor.utcNow()));
        return updateActive(em, u.findingKey(), env, null, fields)
                .map(row -> outcome(FindingOutcome.Kind.UPDATED, row, u.findingKey(), env))
                .orElseGet(() -> FindingOutcome.nothing(FindingOutcome.Kind.NOT_FOUND, u.findingKey(), env));
    }

    private FindingOutcome clear(EntityManager em, FindingAction.Clear c, EpisodeRef episode) {
        String env = envOf(c.env(), episode);
        // Lock the active row first. While we hold it nobody else can clear it, and no second
        // active row can appear for this (key, env), so the cleared slot we free next stays free
        // until our own UPDATE takes it.
        TypedQuery<FindingEntity> q = em.createQuery("SELECT f FROM FindingEntity f WHERE f.findingKey = :key"
                + " AND f.status = 'active' AND " + (env == null ? "f.env IS NULL" : "f.env = :env"), FindingEntity.class)
                .setParameter("key", c.findingKey());
        if (env != null) {
            q.setParameter("env", env);
        }
        List<FindingEntity> active = q.setLockMode(LockModeType.PESSIMISTIC_WRITE).setHint(REFRESH, "true")
                .getResultList();
        if (active.isEmpty()) {
            return FindingOutcome.nothing(FindingOutcome.Kind.NOOP, c.findingKey(), env);
        }
        FindingEntity row = active.get(0);
        supersedeCleared(em, active);
        markCleared(em, List.of(row.id), episode == null ? null : episode.id(), c.reason(), false);
        return new FindingOutcome(FindingOutcome.Kind.CLEARED, row.id, row.findingKey, env, row.findingClass,
                severityOf(row.severity));
    }

    // ------------------------------------------------------------------ expiry

    /**
     * Clears up to {@code batch} active findings whose {@code expires_at} has passed on the
     * database clock, with reason {@value #EXPIRED}. Safe to run on every node at once: the rows
     * are locked before they change, and a row another node (or a clear) got to first is skipped.
     *
     * @return how many findings this call cleared
     */
    public int expireDue(EntityManager em, int batch) {
        @SuppressWarnings("unchecked")
        List<String> due = new NativeSql()
                .sql("SELECT id FROM cyclium_findings WHERE status = 'active' AND expires_at <= " + vendor.utcNow()
                        + " ORDER BY expires_at")
                .query(em).setMaxResults(Math.max(1, batch)).getResultList();
        if (due.isEmpty()) {
            return 0;
        }
        List<FindingEntity> locked = em.createQuery(
                        "SELECT f FROM FindingEntity f WHERE f.id IN :ids AND f.status = 'active'", FindingEntity.class)
                .setParameter("ids", due)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE).setHint(REFRESH, "true")
                .getResultList();
        if (locked.isEmpty()) {
            return 0;
        }
        // A re-raise may have pushed expires_at out between the read and the lock: markCleared
        // re-checks it and leaves such a row active. Its older cleared row is archived all the
        // same, which its next clear would have done anyway.
        supersedeCleared(em, locked);
        return markCleared(em, locked.stream().map(f -> f.id).toList(), null, EXPIRED, true);
    }

    /**
     * Archives the {@code cleared} rows that share (key, env) with the given active rows, so that
     * clearing those does not collide with them on the unique (key, 'cleared', env) slot.
     * The caller holds the locks on the active rows.
     */
    private void supersedeCleared(EntityManager em, List<FindingEntity> activeRows) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_findings SET status = 'superseded', archived_at = "
                + vendor.utcNow() + " WHERE status = 'cleared' AND (");
        for (int i = 0; i < activeRows.size(); i++) {
            FindingEntity f = activeRows.get(i);
            sql.sql(i == 0 ? "(" : " OR (").is("finding_key", f.findingKey).sql(" AND ").is("env", f.env).sql(")");
        }
        sql.sql(")").executeUpdate(em);
    }

    private int markCleared(EntityManager em, List<String> ids, String episodeId, String reason, boolean onlyIfDue) {
        Map<String, Object> set = new LinkedHashMap<>();
        set.put("status", "cleared");
        set.put("cleared_at", NativeSql.raw(vendor.utcNow()));
        set.put("updated_at", NativeSql.raw(vendor.utcNow()));
        set.put("cleared_by_episode_id", episodeId);
        set.put("cleared_reason", reason);
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_findings SET ").set(set).sql(" WHERE ").in("id", ids)
                .sql(" AND status = 'active'");
        if (onlyIfDue) {
            sql.sql(" AND expires_at <= " + vendor.utcNow());
        }
        return sql.executeUpdate(em);
    }

    // ------------------------------------------------------------------ helpers

    /** The active row for (key, env) after our own UPDATE locked it. */
    private record ActiveRow(String id, String findingClass, String severity) {
    }

    /**
     * Sets {@code fields} on the active row for (key, env), or on row {@code id} if it is still
     * active; empty when there is no such row.
     */
    private Optional<ActiveRow> updateActive(EntityManager em, String key, String env, String id,
            Map<String, Object> fields) {
        NativeSql update = new NativeSql().sql("UPDATE cyclium_findings SET ").set(fields).sql(" WHERE ");
        int rows = (id == null ? activeSlot(update, key, env) : activeById(update, id)).executeUpdate(em);
        if (rows == 0) {
            return Optional.empty();
        }
        if (rows > 1) {
            throw new IllegalStateException(rows + " active rows for finding " + key + " (env " + env
                    + "): the unique index ux_cyclium_findings_key_status_env is missing");
        }
        // Our UPDATE holds the row lock until commit, so this read sees the same row, still active.
        NativeSql select = new NativeSql().sql("SELECT id, finding_class, severity FROM cyclium_findings WHERE ");
        Object[] row = (Object[]) (id == null ? activeSlot(select, key, env) : activeById(select, id))
                .query(em).getSingleResult();
        return Optional.of(new ActiveRow((String) row[0], (String) row[1], (String) row[2]));
    }

    /** The id of the active row for (key, env), read without a lock. */
    private static Optional<String> activeId(EntityManager em, String key, String env) {
        @SuppressWarnings("unchecked")
        List<Object> ids = activeSlot(new NativeSql().sql("SELECT id FROM cyclium_findings WHERE "), key, env)
                .query(em).getResultList();
        return ids.stream().findFirst().map(String.class::cast);
    }

    private static NativeSql activeById(NativeSql sql, String id) {
        return sql.is("id", id).sql(" AND status = 'active'");
    }

    private static NativeSql activeSlot(NativeSql sql, String key, String env) {
        return sql.is("finding_key", key).sql(" AND status = 'active' AND ").is("env", env);
    }

    private static FindingOutcome outcome(FindingOutcome.Kind kind, ActiveRow row, String key, String env) {
        return new FindingOutcome(kind, row.id(), key, env, row.findingClass(), severityOf(row.severity()));
    }

    private static Severity severityOf(String stored) {
        return Severity.parse(stored).orElse(Severity.MEDIUM);
    }

    /** The action's env if it names one, else the episode's; blank means unset (stored as NULL). */
    static String envOf(String actionEnv, EpisodeRef episode) {
        String env = normalEnv(actionEnv);
        return env != null ? env : episode == null ? null : normalEnv(episode.sourceEnv());
    }

    /** "" and NULL must be one env: SQL Server's index tells them apart, so only NULL is stored. */
    static String normalEnv(String env) {
        return env == null || env.isBlank() ? null : env;
    }

    private static Integer ttlSeconds(Duration ttl) {
        if (ttl == null) {
            return null;
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("finding TTL must be positive, got " + ttl);
        }
        // whole seconds, rounded up: a TTL never ends early
        long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
        return (int) Math.min(seconds, Integer.MAX_VALUE);
    }

    private static void checkKey(String key, String env) {
        if (key.isBlank() || key.length() > MAX_KEY) {
            throw new IllegalArgumentException("finding key must be 1 to " + MAX_KEY + " characters, got "
                    + key.length());
        }
        if (env != null && env.length() > MAX_ENV) {
            throw new IllegalArgumentException("env \"" + env + "\" is longer than " + MAX_ENV + " characters");
        }
    }
}
