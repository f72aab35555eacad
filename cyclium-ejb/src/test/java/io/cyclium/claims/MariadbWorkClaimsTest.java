package io.cyclium.claims;

import io.cyclium.testing.TestDatabase.Vendor;

class MariadbWorkClaimsTest extends JpaWorkClaimsContract {

    @Override
    Vendor vendor() {
        return Vendor.MARIADB;
    }
}
