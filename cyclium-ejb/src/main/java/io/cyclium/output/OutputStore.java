package io.cyclium.output;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Owns every write on {@code cyclium_outputs} and the reads the write path needs (the read side
 * for pages and the API is {@link OutputQueries}).
 *
 * <p>Lifecycle: {@code proposed} (inserted; the unique dedupe key lets one insert through per
 * key) → {@code delivered} or {@code failed}; an operator's retry moves {@code failed} (or a
 * {@code proposed} row whose episode has ended: a node died between the adapter and the answer) →
 * {@code retrying} → {@code delivered} or {@code failed}. Every transition is one UPDATE guarded
 * by the status it leaves, so two nodes can never both move the same output: 0 rows means the
 * other one did. Times come from the database clock.
 */
public final class OutputStore {

    public static final String PROPOSED = "proposed";
    public static final String DELIVERED = "delivered";
    public static final String FAILED = "failed";
    public static final String RETRYING = "retrying";

    private static final String REFRESH = "eclipselink.refresh";

    private final DatabaseVendor vendor;

    public OutputStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /** The answer to "may I retry this output?". */
    public sealed interface RetryClaim {

        /** This caller moved it from failed (or proposed and left behind) to retrying and must deliver it now. */
        record Claimed(OutputView output) implements RetryClaim {
        }

        record NotFound(String outputId) implements RetryClaim {
        }

        /**
         * It is neither failed nor left behind (any more): delivered, proposed by an episode that
         * still runs (and delivers it), or someone is delivering it right now.
         */
        record Refused(String outputId, String status) implements RetryClaim {
        }
    }

    /**
     * Inserts the output as {@code proposed}, counting its first delivery attempt.
     *
     * @return true when this call inserted it (and must now deliver it); false when the dedupe
     *     key was taken already, by an earlier run of the episode or by another node right now
     */
    public boolean insertProposed(EntityManager em, String id, String episodeId, String type, String dedupeKey,
            JsonObject payload) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("episode_id", episodeId);
        row.put("output_type", type);
        row.put("dedupe_key", dedupeKey);
        row.put("status", PROPOSED);
        row.put("payload", JsonText.write(payload));
        row.put("attempts", 1);
        row.put("created_at", NativeSql.raw(vendor.utcNow()));
        row.put("updated_at", NativeSql.raw(vendor.utcNow()));
        return UniqueInsert.insert(em, vendor, "cyclium_outputs", id, new NativeSql().insert("cyclium_outputs", row));
    }

    /**
     * A {@code proposed} row an earlier run of its episode left behind is taken over for one more
     * delivery: attempts + 1, guarded on the attempts the caller read. 0 rows: it was delivered,
     * failed or taken over by someone else meanwhile.
     */
    public int claimRedelivery(EntityManager em, String id, int attemptsRead) {
        return new NativeSql().sql("UPDATE cyclium_outputs SET attempts = attempts + 1, updated_at = " + vendor.utcNow()
                + " WHERE ").is("id", id).sql(" AND status = '" + PROPOSED + "' AND attempts = ").value(attemptsRead)
                .executeUpdate(em);
    }

    /** proposed/retrying → delivered. 0 rows: it was not being delivered any more (nothing changes). */
    public int markDelivered(EntityManager em, String id, String ref) {
        Map<String, Object> set = new LinkedHashMap<>();
        set.put("status", DELIVERED);
        set.put("delivered_ref", ref == null ? NativeSql.raw("NULL") : ref);
        set.put("error_class", NativeSql.raw("NULL"));
        set.put("error_detail", NativeSql.raw("NULL"));
        set.put("delivered_at", NativeSql.raw(vendor.utcNow()));
        set.put("updated_at", NativeSql.raw(vendor.utcNow()));
        return leaveDelivery(em, id, set);
    }

    /** proposed/retrying → failed. 0 rows: it was not being delivered any more (nothing changes). */
    public int markFailed(EntityManager em, String id, String errorClass, String detail) {
        Map<String, Object> set = new LinkedHashMap<>();
        set.put("status", FAILED);
        set.put("error_class", errorClass);
        set.put("error_detail", detail == null ? NativeSql.raw("NULL") : detail);
        set.put("updated_at", NativeSql.raw(vendor.utcNow()));
        return leaveDelivery(em, id, set);
    }

    private static int leaveDelivery(EntityManager em, String id, Map<String, Object> set) {
        return new NativeSql().sql("UPDATE cyclium_outputs SET ").set(set).sql(" WHERE ").is("id", id)
                .sql(" AND status IN ('" + PROPOSED + "', '" + RETRYING + "')").executeUpdate(em);
    }

    /**
     * failed → retrying, counting one more attempt. One conditional UPDATE: of two operators
     * retrying at once, exactly one gets {@link RetryClaim.Claimed}.
     */
    public RetryClaim claimRetry(EntityManager em, String id) {
        // failed, or proposed and left behind: the episode that proposed it has ended (or is gone), so
        // no run of it will deliver it (a resumed run takes a proposed row over only while its episode
        // runs, guarded on the attempts, and this moves it to retrying first: one of the two wins)
        int rows = new NativeSql().sql("UPDATE cyclium_outputs SET status = '" + RETRYING
                        + "', attempts = attempts + 1, updated_at = " + vendor.utcNow() + " WHERE ").is("id", id)
                .sql(" AND (status = '" + FAILED + "' OR (status = '" + PROPOSED + "' AND NOT EXISTS (SELECT 1 FROM"
                        + " cyclium_episodes e WHERE e.id = cyclium_outputs.episode_id AND e.status IN ('running', 'blocked'))))")
                .executeUpdate(em);
        Optional<OutputView> output = find(em, id);
        if (output.isEmpty()) {
            return new RetryClaim.NotFound(id);
        }
        // 0 rows: not failed, or another retry claimed it between the operator's read and ours
        return rows == 1 ? new RetryClaim.Claimed(output.get()) : new RetryClaim.Refused(id, output.get().status());
    }

    public Optional<OutputView> find(EntityManager em, String id) {
        return em.createQuery("SELECT o FROM OutputEntity o WHERE o.id = :id", OutputEntity.class)
                .setParameter("id", id).setHint(REFRESH, "true")
                .getResultList().stream().findFirst().map(OutputView::of);
    }

    public Optional<OutputView> findByDedupeKey(EntityManager em, String dedupeKey) {
        return em.createQuery("SELECT o FROM OutputEntity o WHERE o.dedupeKey = :key", OutputEntity.class)
                .setParameter("key", dedupeKey).setHint(REFRESH, "true")
                .getResultList().stream().findFirst().map(OutputView::of);
    }

    /**
     * An episode's scope for derived output keys: its dedupe key, or its id when it has none; empty
     * when the episode is not stored any more (a retry chain whose first episode was purged).
     */
    public Optional<String> scopeOfEpisode(EntityManager em, String episodeId) {
        @SuppressWarnings("unchecked")
        List<Object> keys = em.createNativeQuery("SELECT COALESCE(dedupe_key, id) FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, episodeId).getResultList();
        return keys.stream().findFirst().map(Object::toString);
    }
}
