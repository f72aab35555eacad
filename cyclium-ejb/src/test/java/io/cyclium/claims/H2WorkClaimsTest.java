package io.cyclium.claims;

import io.cyclium.testing.TestDatabase.Vendor;

class H2WorkClaimsTest extends JpaWorkClaimsContract {

    @Override
    Vendor vendor() {
        return Vendor.H2;
    }
}
