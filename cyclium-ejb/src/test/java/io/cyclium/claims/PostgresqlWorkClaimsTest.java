package io.cyclium.claims;

import io.cyclium.testing.TestDatabase.Vendor;

class PostgresqlWorkClaimsTest extends JpaWorkClaimsContract {

    @Override
    Vendor vendor() {
        return Vendor.POSTGRESQL;
    }
}
