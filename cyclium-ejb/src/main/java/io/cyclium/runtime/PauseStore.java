package io.cyclium.runtime;

import io.cyclium.node.DbClock;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL of {@code cyclium_pauses}: one row per target ever paused, never deleted. A change sets
 * {@code paused} and raises {@code revision} in one guarded UPDATE (0 rows: already in that state,
 * or no row yet, which the INSERT then creates), so {@link #FINGERPRINT} — the sum of the revisions
 * — moves with every change and every node can tell from that one scalar whether to read the rows.
 * Runs in the caller's transaction.
 */
public final class PauseStore {

    /** A scalar sub-select other periodic statements carry (the workflow pulse): moves with every change. */
    public static final String FINGERPRINT = "(SELECT COALESCE(SUM(revision), 0) FROM cyclium_pauses)";

    /** One paused target, who paused it and when (database clock, UTC). */
    public record Paused(PauseTarget target, String by, LocalDateTime since) {
    }

    private final DatabaseVendor vendor;

    public PauseStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /**
     * Pauses ({@code paused} true) or resumes the target; returns whether this call changed it
     * (false: it already was in that state). Two operators pausing the same never-paused target at
     * once: one INSERT wins, the other fails on the primary key and its transaction rolls back.
     */
    public boolean set(EntityManager em, PauseTarget target, boolean paused, String by) {
        int changed = new NativeSql().sql("UPDATE cyclium_pauses SET paused = ").value(paused)
                .sql(", revision = revision + 1, changed_by = ").value(by).sql(", changed_at = " + vendor.utcNow())
                .sql(" WHERE kind = ").value(target.kind().wire()).sql(" AND target = ").value(target.target())
                .sql(" AND paused = ").value(!paused).executeUpdate(em);
        if (changed == 1 || !paused) {
            return changed == 1; // a resume of a target never paused changes nothing
        }
        Number exists = (Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_pauses WHERE kind = ")
                .value(target.kind().wire()).sql(" AND target = ").value(target.target()).query(em).getSingleResult();
        if (exists.intValue() > 0) {
            return false;
        }
        new NativeSql().sql("INSERT INTO cyclium_pauses (kind, target, paused, revision, changed_by, changed_at) VALUES (")
                .value(target.kind().wire()).sql(", ").value(target.target()).sql(", ").value(Boolean.TRUE)
                .sql(", 1, ").value(by).sql(", " + vendor.utcNow() + ")").executeUpdate(em);
        return true;
    }

    /**
     * Every target paused now, with a fingerprint read <em>before</em> the rows: a change committed
     * between the two reads is in the rows but not in the fingerprint, so the next pulse sees the
     * fingerprint move and reads again (never the other way round, which could hide a pause).
     */
    public Snapshot read(EntityManager em) {
        long fingerprint = ((Number) em.createNativeQuery("SELECT " + FINGERPRINT).getSingleResult()).longValue();
        List<?> rows = new NativeSql().sql("SELECT kind, target, changed_by, changed_at FROM cyclium_pauses WHERE paused = ")
                .value(Boolean.TRUE).sql(" ORDER BY kind, target").query(em).getResultList();
        List<Paused> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new Paused(new PauseTarget(PauseTarget.Kind.parse((String) c[0]), (String) c[1]), (String) c[2],
                    DbClock.toLocalDateTime(c[3])));
        }
        return new Snapshot(List.copyOf(out), fingerprint);
    }

    /** What {@link #read} found. */
    public record Snapshot(List<Paused> paused, long fingerprint) {
    }
}
