package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.FakeTime;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import io.cyclium.telemetry.Telemetry;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leases are measured on the database's clock, not the node's: the claimant runs in a child JVM
 * whose wall clock libfaketime shifts by ten minutes ({@link SkewedClaimant}), and the lease it
 * takes, or the lease it finds, is judged against the database's own time read here.
 */
class SkewedNodeLeaseTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    static final long SKEW_SECONDS = 600;
    static final int LEASE = 30;

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    void the_lease_is_measured_on_the_database_clock_even_from_a_node_ten_minutes_behind(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        String key = "skew:" + UUID.randomUUID();

        LocalDateTime before = databaseNow(jpa);
        List<String> out = claimFromSkewedNode(jpa.database(), -SKEW_SECONDS, key, "behind-node");
        LocalDateTime after = databaseNow(jpa);

        assertThat(out).contains("acquired fence 1");
        LocalDateTime leaseUntil = new JpaWorkClaims(jpa, jpa.vendor(), Telemetry.NOOP).find(key).orElseThrow().leaseUntil();
        // a lease timed on the child's clock would end nine and a half minutes ago
        assertThat(leaseUntil).isBetween(before.plusSeconds(LEASE).minusSeconds(1), after.plusSeconds(LEASE).plusSeconds(1));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    void a_node_ten_minutes_ahead_finds_a_live_lease_busy_and_takes_nothing(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        String key = "skew:" + UUID.randomUUID();
        JpaWorkClaims claims = new JpaWorkClaims(jpa, jpa.vendor(), Telemetry.NOOP);
        assertThat(claims.acquire(key, "holder", LEASE, "episode")).isInstanceOf(Acquisition.Acquired.class);

        List<String> out = claimFromSkewedNode(jpa.database(), SKEW_SECONDS, key, "ahead-node");

        // on the child's clock the lease ran out nine and a half minutes ago: stealing it would be a false steal
        assertThat(out).contains("busy");
        ClaimRecord row = claims.find(key).orElseThrow();
        assertThat(row.owner()).isEqualTo("holder");
        assertThat(row.fence()).isEqualTo(1);
    }

    private static LocalDateTime databaseNow(TestJpa jpa) {
        Object now = jpa.inNewTransaction(em -> em.createNativeQuery("SELECT " + jpa.vendor().utcNow()).getSingleResult());
        return now instanceof java.sql.Timestamp t ? t.toLocalDateTime() : (LocalDateTime) now;
    }

    /** Runs {@link SkewedClaimant} with its clock shifted; checks that the shift took, returns its answer lines. */
    private static List<String> claimFromSkewedNode(TestDatabase db, long skewSeconds, String key, String owner) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), SkewedClaimant.class.getName(), db.vendor().name(), db.name(),
                key, owner, String.valueOf(LEASE)).redirectErrorStream(true);
        pb.environment().putAll(FakeTime.shiftedBy(skewSeconds));
        long started = System.currentTimeMillis();
        Process child = pb.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        List<String> lines = output.lines().toList();
        long childNow = lines.stream().filter(l -> l.startsWith("jvm-now ")).mapToLong(l -> Long.parseLong(l.substring(8)))
                .findFirst().orElseThrow(() -> new AssertionError("no clock line from the child: " + output));
        // the child's clock really was off (faketime works on this JVM): within a minute of the asked shift
        assertThat(Duration.ofMillis(childNow - started).toSeconds()).as("child clock offset, s")
                .isBetween(skewSeconds - 60, skewSeconds + 60);
        return lines;
    }
}
