package io.cyclium.finding;

import static io.cyclium.finding.FindingFixture.episode;
import static io.cyclium.finding.FindingFixture.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.NotificationOptions;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The finding_active gauges (per severity): cluster-wide counts of active findings, counted again
 * at once after a change on this node and by every expiry sweep (which sees other nodes' changes).
 * A database of its own, so the counts are this test's rows only.
 */
class FindingActiveGaugeTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    /** The CDI event, as the container would fire it: kept, so the test can see the change was announced. */
    private static final class Fired implements Event<FindingChanged> {
        final List<FindingChanged> fired = new ArrayList<>();

        @Override
        public void fire(FindingChanged event) {
            fired.add(event);
        }

        @Override
        public <U extends FindingChanged> CompletionStage<U> fireAsync(U event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends FindingChanged> CompletionStage<U> fireAsync(U event, NotificationOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Event<FindingChanged> select(Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends FindingChanged> Event<U> select(Class<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends FindingChanged> Event<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }
    }

    /** Findings as the container builds them, over this test's database and telemetry. */
    private static Findings findings(TestJpa jpa, RecordingTelemetry telemetry) {
        Findings findings = new Findings();
        findings.tx = jpa;
        findings.vendor = jpa.vendor();
        findings.telemetry = telemetry;
        findings.changed = new Fired();
        findings.init();
        return findings;
    }

    @Test
    void the_active_gauges_count_per_severity_at_once_after_a_change_here_and_on_every_sweep() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        RecordingTelemetry telemetry = new RecordingTelemetry();
        Findings findings = findings(jpa, telemetry);
        EpisodeRef episode = episode(null);
        String first = key();

        assertThat(telemetry.gauge("finding_active", "severity", "high")).isZero();
        findings.apply(FindingAction.raise(first, "cpu_high").withSeverity(Severity.HIGH), episode);
        assertThat(telemetry.gauge("finding_active", "severity", "high")).as("counted at once after our raise").isEqualTo(1);

        findings.apply(FindingAction.raise(key(), "disk_full").withSeverity(Severity.CRITICAL), episode);
        new FindingFixture(jpa).apply(FindingAction.raise(key(), "cpu_high").withSeverity(Severity.HIGH), episode(null));
        findings.recountActive(false); // the expiry sweep's tick
        assertThat(telemetry.gauge("finding_active", "severity", "high")).as("another node's raise too").isEqualTo(2);
        assertThat(telemetry.gauge("finding_active", "severity", "critical")).isEqualTo(1);
        assertThat(telemetry.gauge("finding_active", "severity", "low")).isZero();

        findings.apply(FindingAction.clear(first, "recovered"), episode);
        findings.recountActive(false);
        assertThat(telemetry.gauge("finding_active", "severity", "high")).isEqualTo(1);
        assertThat(telemetry.count("finding_raised")).as("our two raises, not the other node's").isEqualTo(2);
        assertThat(telemetry.count("finding_cleared")).isEqualTo(1);
    }

    @Test
    void an_expiry_sweep_tick_counts_the_findings_it_cleared() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        RecordingTelemetry telemetry = new RecordingTelemetry();
        Findings findings = findings(jpa, telemetry);
        FindingOutcome due = findings.apply(FindingAction.raise(key(), "ttl_metric").withTtl(java.time.Duration.ofHours(1)),
                episode(null));
        findings.apply(FindingAction.raise(key(), "ttl_metric").withTtl(java.time.Duration.ofHours(1)), episode(null));
        jpa.run(em -> em.createNativeQuery("UPDATE cyclium_findings SET expires_at = " + jpa.vendor().utcNowPlusSeconds("-60")
                + " WHERE id = ?1").setParameter(1, due.findingId()).executeUpdate());
        FindingExpirySweep sweep = new FindingExpirySweep();
        sweep.findings = findings;
        sweep.telemetry = telemetry;

        sweep.sweep();

        assertThat(telemetry.count("finding_expired")).as("the one row past its expiry").isEqualTo(1);
    }
}
