package io.cyclium.finding;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Read side of {@code cyclium_findings}: returns views, never entities (every write is in
 * {@link FindingStore}).
 *
 * <p>Two ways in. The container's bean reads in the caller's transaction, if any (console pages).
 * {@code new FindingQueries(vendor)} and the methods that take an {@link EntityManager} read
 * inside a transaction the caller owns ({@link Findings}, the episode detail, tests).
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class FindingQueries {

    public static final int MAX_PAGE = 500;

    /** The filters {@link #activeFor} accepts, in the order an error message lists them. */
    public static final List<String> FILTERS =
            List.of("actor", "class", "finding_key", "subject_kind", "subject_id", "caused_by", "severity");

    public static final Set<String> STATUSES = Set.of("active", "cleared", "superseded");

    private static final Map<String, String> FILTER_COLUMNS = Map.of(
            "actor", "actor_id",
            "class", "finding_class",
            "finding_key", "finding_key",
            "subject_kind", "subject_kind",
            "subject_id", "subject_id",
            "caused_by", "caused_by_key");

    private static final String REFRESH = "eclipselink.refresh";

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Inject
    DatabaseVendor vendor;

    /** For the container. */
    public FindingQueries() {
    }

    public FindingQueries(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /** Active findings of every env, most recently updated first. */
    public List<FindingView> active(int limit) {
        return active(em, limit);
    }

    /** Active findings per severity, every {@link Severity} listed (0 when none). */
    public Map<String, Long> activeCountsBySeverity() {
        return activeCountsBySeverity(em);
    }

    public List<FindingView> active(EntityManager em, int limit) {
        return em.createQuery("SELECT f FROM FindingEntity f WHERE f.status = 'active' ORDER BY f.updatedAt DESC, f.id",
                        FindingEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .getResultList().stream().map(FindingView::of).toList();
    }

    public Map<String, Long> activeCountsBySeverity(EntityManager em) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Severity s : Severity.values()) {
            counts.put(s.wireName(), 0L);
        }
        for (Object[] row : em.createQuery("SELECT f.severity, COUNT(f) FROM FindingEntity f WHERE f.status = 'active'"
                + " GROUP BY f.severity", Object[].class).getResultList()) {
            counts.put((String) row[0], (Long) row[1]);
        }
        return counts;
    }

    /** The findings an episode raised or cleared, oldest update first, at most {@value #MAX_PAGE}. */
    public List<FindingView> touchedBy(EntityManager em, String episodeId) {
        return em.createQuery("SELECT f FROM FindingEntity f WHERE f.raisedByEpisodeId = :id"
                        + " OR f.clearedByEpisodeId = :id ORDER BY f.updatedAt", FindingEntity.class)
                .setParameter("id", episodeId)
                .setMaxResults(MAX_PAGE).getResultList().stream().map(FindingView::of).toList();
    }

    /**
     * Active, unexpired findings of one env (null: the unset env; no other env matches it), most
     * recently updated first.
     *
     * @param filters any of {@link #FILTERS}; each must equal the column, except {@code severity},
     *                which is a minimum: {@code high} returns high and critical findings
     * @param limit   capped at {@value #MAX_PAGE}
     * @throws IllegalArgumentException for an unknown filter, a filter without value or an
     *                                  unknown severity; the message lists what is allowed
     */
    public List<FindingView> activeFor(EntityManager em, Map<String, String> filters, String env, int limit) {
        Map<String, String> given = filters == null ? Map.of() : filters;
        for (Map.Entry<String, String> f : given.entrySet()) {
            if (!FILTERS.contains(f.getKey())) {
                throw new IllegalArgumentException("unknown finding filter \"" + f.getKey() + "\"; allowed filters: "
                        + String.join(", ", FILTERS));
            }
            if (f.getValue() == null || f.getValue().isBlank()) {
                throw new IllegalArgumentException("finding filter \"" + f.getKey() + "\" has no value");
            }
        }
        NativeSql sql = new NativeSql().sql("SELECT * FROM cyclium_findings WHERE status = 'active' AND ")
                .is("env", FindingStore.normalEnv(env))
                .sql(" AND (expires_at IS NULL OR expires_at > " + vendor.utcNow() + ")");
        for (String name : FILTERS) {
            String value = given.get(name);
            if (value == null) {
                continue;
            }
            if (name.equals("severity")) {
                sql.sql(" AND ").in("severity", atLeast(value));
            } else {
                sql.sql(" AND ").is(FILTER_COLUMNS.get(name), value);
            }
        }
        return read(em, sql.sql(" ORDER BY updated_at DESC, id"), limit);
    }

    /**
     * Findings for listings (the REST API, the console): optionally one status and one class, in
     * one env or in all of them, most recently updated first. Expired rows the sweep has not
     * cleared yet are still listed as active: this shows the table as it is.
     *
     * @param status null or blank: every status; else active, cleared or superseded
     * @param anyEnv true: ignore {@code env}; false: exactly {@code env} (null: the unset env)
     */
    public List<FindingView> list(EntityManager em, String status, String findingClass, String env, boolean anyEnv,
            int limit) {
        NativeSql sql = new NativeSql().sql("SELECT * FROM cyclium_findings WHERE 1 = 1");
        if (status != null && !status.isBlank()) {
            if (!STATUSES.contains(status)) {
                throw new IllegalArgumentException("unknown finding status \"" + status
                        + "\"; allowed: active, cleared, superseded");
            }
            sql.sql(" AND ").is("status", status);
        }
        if (findingClass != null && !findingClass.isBlank()) {
            sql.sql(" AND ").is("finding_class", findingClass);
        }
        if (!anyEnv) {
            sql.sql(" AND ").is("env", FindingStore.normalEnv(env));
        }
        return read(em, sql.sql(" ORDER BY updated_at DESC, id"), limit);
    }

    private static List<FindingView> read(EntityManager em, NativeSql sql, int limit) {
        @SuppressWarnings("unchecked")
        List<FindingEntity> rows = sql.query(em, FindingEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .setHint(REFRESH, "true")
                .getResultList();
        return rows.stream().map(FindingView::of).toList();
    }

    /** The severities at or above {@code minimum}, as stored. */
    private static List<String> atLeast(String minimum) {
        Severity floor = Severity.parse(minimum).orElseThrow(() -> new IllegalArgumentException(
                "severity filter \"" + minimum + "\" is not one of "
                        + String.join(", ", Arrays.stream(Severity.values()).map(Severity::wireName).toList())));
        List<String> levels = new ArrayList<>();
        for (Severity s : Severity.values()) {
            if (s.compareTo(floor) >= 0) {
                levels.add(s.wireName());
            }
        }
        return levels;
    }
}
