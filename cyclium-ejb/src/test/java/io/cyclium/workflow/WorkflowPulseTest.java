package io.cyclium.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.store.DatabaseTime;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The idle workflow timer's one statement, {@link WorkflowQueries#pulse}, and the definitions'
 * cache it refreshes, on H2, PostgreSQL and MariaDB. The pulse reads the whole schema, so each test
 * has a database of its own.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowPulseTest {

    @org.junit.jupiter.api.extension.RegisterExtension
    final io.cyclium.testing.OwnDatabases own = new io.cyclium.testing.OwnDatabases();

    TestJpa ownDatabase(Vendor vendor) {
        return own.open(vendor);
    }

    /** One node's definitions over {@code db}; its statements are counted in {@code reads}. */
    static WorkflowDefinitions node(TestJpa db, String name, List<String> reads) {
        io.cyclium.store.Tx counting = new io.cyclium.store.Tx() {
            @Override
            public <T> T inNewTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                reads.add(name);
                return db.inNewTransaction(work);
            }
        };
        return new WorkflowDefinitions(counting, new WorkflowStore(DatabaseTime.of(db.vendor()), name),
                new WorkflowQueries(db.vendor()), List::of);
    }

    static WorkflowQueries.Pulse pulse(TestJpa db) {
        return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).pulse(em));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_uses_its_definitions_from_memory_and_sees_another_node_s_change_after_the_next_pulse(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        WorkflowDefinition def = WorkflowEngineTest.diamond();
        List<String> reads = new ArrayList<>();
        WorkflowDefinitions a = node(db, "a", reads);
        WorkflowDefinitions b = node(db, "b", reads);
        a.registerCode(List.of(def));

        assertThat(b.enabled()).extracting(WorkflowDefinition::id).containsExactly(def.id());
        reads.clear();
        for (int i = 0; i < 100; i++) {
            assertThat(b.find(def.id())).isPresent();
            assertThat(b.enabled()).hasSize(1);
        }
        assertThat(reads).as("no statement per use").isEmpty();

        a.setEnabled(def.id(), false);
        assertThat(a.enabled()).as("the writing node at once").isEmpty();
        assertThat(b.enabled()).as("the other node until its pulse").hasSize(1);
        assertThat(b.seen(pulse(db).definitions())).isTrue();
        assertThat(b.enabled()).isEmpty();
        assertThat(b.seen(pulse(db).definitions())).as("nothing changed since").isFalse();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_pulse_names_the_earliest_step_retry_of_a_running_instance_on_the_database_s_clock(Vendor vendor) {
        TestJpa db = ownDatabase(vendor);
        assertThat(pulse(db).stepRetryDue()).as("nothing waits").isNull();
        RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(10), 3.0, Duration.ofMinutes(5), 0.0, Set.of());
        WorkflowDefinition def = WorkflowEngineTest.workflow(new StepDefinition("flaky", "worker", "work", List.of(), true,
                false, FailurePolicy.ABORT, retry));
        StepEpisodes episodes = new StepEpisodes(db);
        List<Duration> stored = new ArrayList<>();
        WorkflowEngine engine = new WorkflowEngine(db, new WorkflowStore(DatabaseTime.of(db.vendor()), "n1"),
                new WorkflowQueries(db.vendor()), id -> Optional.of(def), episodes,
                new MutableClock(Instant.parse("2026-11-30T12:00:00Z")), new RecordingTelemetry(), () -> 0.5);
        engine.onRetryStored(stored::add);
        String id = engine.start(def, WorkflowEngineTest.whole());

        engine.onFinished(episodes.finish(episodes.only("flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));
        WorkflowQueries.Pulse p = pulse(db);
        assertThat(stored).as("this node's alarm hears the backoff").containsExactly(Duration.ofSeconds(10));
        assertThat(Duration.between(p.now(), p.stepRetryDue())).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));

        engine.cancel(id, "ops");
        assertThat(pulse(db).stepRetryDue()).as("a canceled instance's step never runs again").isNull();
    }
}
