package io.cyclium.claims;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;

/**
 * Makes a claim's lease lapse now, as if its holder had stopped renewing it: the test moves
 * {@code lease_until} into the past on the database's clock instead of sleeping.
 */
final class LeaseLapse {

    private LeaseLapse() {
    }

    static void lapse(Tx tx, DatabaseVendor vendor, String key) {
        tx.run(em -> em.createNativeQuery("UPDATE cyclium_work_claims SET lease_until = "
                        + vendor.utcNowPlusSeconds("-5") + " WHERE dedupe_key = ?1 AND state = 'claimed'")
                .setParameter(1, key).executeUpdate());
    }
}
