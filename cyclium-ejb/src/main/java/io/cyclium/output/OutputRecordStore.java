package io.cyclium.output;

import io.cyclium.output.OutputAdapter.Delivery;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Owns the statements on {@code cyclium_output_records}, the table the {@code database} output
 * adapter writes to. Idempotent on its own, as an adapter for an external system should be: the
 * record's dedupe key is unique, so a delivery repeated for the same key (an operator's retry
 * after a crash that left the output unmarked) finds the row it wrote before instead of adding one.
 */
public final class OutputRecordStore {

    private final DatabaseVendor vendor;

    public OutputRecordStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /** Writes the delivery's payload; returns the record's id, new or existing. */
    public String store(EntityManager em, Delivery delivery) {
        String id = UUID.randomUUID().toString();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("dedupe_key", delivery.dedupeKey());
        row.put("output_type", delivery.type());
        row.put("episode_id", delivery.episodeId());
        row.put("payload", JsonText.write(delivery.payload()));
        row.put("created_at", NativeSql.raw(vendor.utcNow()));
        if (UniqueInsert.insert(em, vendor, "cyclium_output_records", id,
                new NativeSql().insert("cyclium_output_records", row))) {
            return id;
        }
        // an earlier delivery of this key wrote its record (and committed: our insert waited for it)
        return (String) new NativeSql().sql("SELECT id FROM cyclium_output_records WHERE ")
                .is("dedupe_key", delivery.dedupeKey()).query(em).getSingleResult();
    }
}
