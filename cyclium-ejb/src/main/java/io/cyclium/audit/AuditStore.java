package io.cyclium.audit;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Owns the writes of {@code cyclium_audit}: one INSERT per action, in the caller's transaction,
 * stamped with the database clock. Rows are never changed; the retention job deletes old ones.
 */
public class AuditStore {

    static final int MAX_TEXT = 1000;

    private final DatabaseVendor vendor;

    public AuditStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /**
     * Inserts the row of {@code entry}; false when its id is there already (an action whose change
     * spans several transactions records in the first that commits; the later ones add nothing).
     */
    public boolean insert(EntityManager em, AuditEntry entry, Outcome outcome, String reason) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", entry.id());
        row.put("occurred_at", NativeSql.raw(vendor.utcNow()));
        row.put("user_name", cut(entry.operator().user(), 255));
        row.put("client_address", cut(entry.operator().address(), 64));
        row.put("node_identity", cut(entry.node(), 255));
        row.put("action", entry.action().wire());
        row.put("subject_kind", entry.action().subject().wire());
        row.put("subject_id", cut(entry.subjectId(), 512));
        row.put("episode_id", entry.episodeId() != null && entry.episodeId().length() == 36 ? entry.episodeId() : null);
        row.put("outcome", outcome.wire());
        row.put("reason", cut(reason, MAX_TEXT));
        row.put("detail", cut(entry.detail(), MAX_TEXT));
        return UniqueInsert.insert(em, vendor, "cyclium_audit", entry.id(), new NativeSql().insert("cyclium_audit", row));
    }

    /** Whether the row of {@code id} committed (asked after an action failed: did its change land?). */
    public boolean exists(EntityManager em, String id) {
        Number n = (Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_audit WHERE id = ").value(id).query(em)
                .getSingleResult();
        return n.intValue() > 0;
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
