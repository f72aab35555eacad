package io.cyclium.output;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Output type {@value #TYPE}: writes the payload as a row of {@code cyclium_output_records} (see
 * {@link OutputRecordStore}) in a transaction of its own, and returns the row's id.
 */
@ApplicationScoped
public class DatabaseOutputAdapter implements OutputAdapter {

    public static final String TYPE = "database";

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    private OutputRecordStore records;

    @PostConstruct
    void init() {
        records = new OutputRecordStore(vendor);
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public String deliver(Delivery delivery) {
        return tx.inNewTransaction(em -> records.store(em, delivery));
    }
}
