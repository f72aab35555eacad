package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of {@code cyclium_rate_buckets}, and the guard of a cluster-wide rate limit: {@link #take}
 * is one UPDATE that refills the bucket for the time since its last refill, on the database clock,
 * and takes a token only when at least one is there; 0 rows means none is (another node took the
 * last one, normal), and the answer says when the next is due. However many nodes start at once,
 * the row lock orders them and no token is taken twice. Runs in the caller's transaction.
 *
 * <p>A missing row is a full bucket, and so is a row untouched for a whole period (it has refilled
 * to its cap): deleting such a row changes no answer. That is how the buckets of a per-key rate
 * ({@code rateLimitPerKey}) stay bounded: the start that creates a key's bucket first deletes the
 * buckets of its scope idle for longer than the period, so a scope holds at most the keys that
 * started within about one period (plus those idle since the last new key), however many keys it
 * has ever seen. A start racing the delete finds no row and creates it full: the same answer.
 */
public final class RateStore {

    private final DatabaseVendor vendor;

    public RateStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /** Takes a token of {@code limit}: 0 when taken, otherwise the milliseconds until the next is due. */
    public long take(EntityManager em, RateLimit limit) {
        if (takeOne(em, limit)) {
            return 0;
        }
        Double available = available(em, limit);
        if (available == null) {
            if (limit.perKey()) {
                pruneIdle(em, limit);
            }
            // the first start of this limit: a full bucket less the token this start takes
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("scope", limit.scope());
            row.put("rate_key", limit.key());
            row.put("tokens", (double) (limit.starts() - 1));
            row.put("refilled_at", NativeSql.raw(vendor.utcNow()));
            if (UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_rate_buckets", row))) {
                return 0;
            }
            if (takeOne(em, limit)) {
                return 0; // another node created it a moment before
            }
            available = available(em, limit);
        }
        double missing = 1.0 - (available == null ? 0.0 : available);
        return Math.max(1, (long) Math.ceil(missing * limit.period().toMillis() / limit.starts()));
    }

    /** When the next token of {@code limit} is due, in milliseconds from now (0: one is there, or none was ever taken). */
    public long dueInMillis(EntityManager em, RateLimit limit) {
        Double available = available(em, limit);
        if (available == null || available >= 1.0) {
            return 0;
        }
        return (long) Math.ceil((1.0 - available) * limit.period().toMillis() / limit.starts());
    }

    /** Puts back a token taken in this transaction (a start that could not take all it needs). */
    public void giveBack(EntityManager em, RateLimit limit) {
        new NativeSql().sql("UPDATE cyclium_rate_buckets SET tokens = tokens + 1 WHERE scope = ").value(limit.scope())
                .sql(" AND rate_key = ").value(limit.key()).executeUpdate(em);
    }

    /** Deletes the buckets of the scope idle for a whole period (full: the same as no row); returns how many. */
    int pruneIdle(EntityManager em, RateLimit limit) {
        return new NativeSql().sql("DELETE FROM cyclium_rate_buckets WHERE scope = ").value(limit.scope())
                .sql(" AND " + vendor.millisBetween("refilled_at", vendor.utcNow()) + " >= " + limit.period().toMillis())
                .executeUpdate(em);
    }

    /** Buckets stored for a scope now (a per-key rate's keys seen within about a period). */
    public int buckets(EntityManager em, String scope) {
        return ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_rate_buckets WHERE scope = ").value(scope)
                .query(em).getSingleResult()).intValue();
    }

    private boolean takeOne(EntityManager em, RateLimit limit) {
        String avail = availableSql(limit);
        // MariaDB assigns left to right and later assignments see earlier ones: tokens before refilled_at
        return new NativeSql().sql("UPDATE cyclium_rate_buckets SET tokens = CASE WHEN " + avail + " > " + limit.starts()
                + " THEN " + (limit.starts() - 1) + " ELSE " + avail + " - 1 END, refilled_at = " + vendor.utcNow()
                + " WHERE scope = ").value(limit.scope()).sql(" AND rate_key = ").value(limit.key())
                .sql(" AND " + avail + " >= 1").executeUpdate(em) == 1;
    }

    private Double available(EntityManager em, RateLimit limit) {
        List<?> rows = new NativeSql().sql("SELECT " + availableSql(limit) + " FROM cyclium_rate_buckets WHERE scope = ")
                .value(limit.scope()).sql(" AND rate_key = ").value(limit.key()).query(em).getResultList();
        return rows.isEmpty() ? null : ((Number) rows.get(0)).doubleValue();
    }

    /** The tokens there now: what was left plus the refill since, on the database clock (capped by the UPDATE). */
    private String availableSql(RateLimit limit) {
        return "(tokens + " + vendor.millisBetween("refilled_at", vendor.utcNow()) + " * " + limit.perMilliLiteral() + ")";
    }
}
