package io.cyclium.claims;

import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestJpa;
import java.time.Instant;

/**
 * A child JVM for {@link SkewedNodeLeaseTest}, started under {@code faketime}: prints its own
 * clock, then acquires one claim with the real {@link JpaWorkClaims} against an existing test
 * database and prints the answer. Arguments: vendor, database name, key, owner, lease seconds.
 */
public final class SkewedClaimant {

    private SkewedClaimant() {
    }

    public static void main(String[] args) {
        TestDatabase.Vendor vendor = TestDatabase.Vendor.valueOf(args[0]);
        System.out.println("jvm-now " + Instant.now().toEpochMilli());
        try (TestDatabase db = TestDatabase.attach(vendor, args[1]); TestJpa jpa = new TestJpa(db)) {
            Acquisition a = new JpaWorkClaims(jpa, jpa.vendor(), Telemetry.NOOP).acquire(args[2], args[3],
                    Integer.parseInt(args[4]), "episode");
            System.out.println(a instanceof Acquisition.Acquired acquired ? "acquired fence " + acquired.claim().fence() : "busy");
        }
    }
}
