package io.cyclium.runtime;

import static io.cyclium.actor.TestActors.actor;
import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.Overflow;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.runtime.FireResult.Kind;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.ManualScheduler;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.OwnDatabases;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.Jitter;
import io.cyclium.workflow.WorkflowQueries;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pauses on H2, PostgreSQL and MariaDB: the table is the truth, a node's copy follows the
 * fingerprint the workflow pulse carries, a paused actor's or expectation's fresh work is stored
 * and queued (never dropped, never started) and starts when the resume is heard, without a restart.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class PausesTest {

    private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");
    private static final TriggerInfo SCHEDULED = new TriggerInfo(TriggerInfo.SCHEDULE, null, null, null, T0);

    @RegisterExtension
    final OwnDatabases own = new OwnDatabases();

    private final MutableClock clock = new MutableClock(T0);
    private final ManualScheduler timers = new ManualScheduler(clock);

    /** One node's copy of the pauses over {@code db}. */
    static Pauses node(TestJpa db) {
        Pauses p = new Pauses();
        p.tx = db;
        p.vendor = db.vendor();
        p.telemetry = Telemetry.NOOP;
        p.gauges();
        p.refresh();
        return p;
    }

    static boolean set(TestJpa db, PauseTarget target, boolean paused) {
        return db.inNewTransaction(em -> new PauseStore(db.vendor()).set(em, target, paused, "alice"));
    }

    /** What a node's workflow pulse reads: the pauses' fingerprint is one of its columns. */
    static long pulse(TestJpa db) {
        return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).pulse(em)).pauses();
    }

    private ActorRuntime runtime(RecordingLauncher launcher, Pauses pauses, Overflow overflow, String... expectations) {
        io.cyclium.actor.TestActors.ExpectationBuilder[] e = new io.cyclium.actor.TestActors.ExpectationBuilder[expectations.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = expectation(expectations[i]);
        }
        ActorRuntime rt = new ActorRuntime(actor("worker", overflow, e), 2, launcher, new ActorRuntime.Context(timers, clock,
                Telemetry.NOOP, "node-b", "stack-a", null, new Jitter(Duration.ZERO), () -> io.cyclium.config.NodeMode.FULL))
                .pausedBy(pauses);
        pauses.onChange(rt::wake);
        return rt;
    }

    private static FireResult fire(ActorRuntime rt, String expectation, String key) {
        return rt.fire(rt.definition().expectation(expectation).orElseThrow(), SCHEDULED, key, false);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_pause_made_through_one_node_holds_another_node_s_work_after_its_pulse_and_the_resume_starts_it(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Pauses a = node(db);
        Pauses b = node(db);
        RecordingLauncher launcher = new RecordingLauncher();
        // DROP: a paused actor's work is still stored and queued, whatever its overflow policy
        ActorRuntime rt = runtime(launcher, b, Overflow.DROP, "work");

        assertThat(set(db, PauseTarget.actor("worker"), true)).isTrue();
        a.refresh();
        assertThat(a.holds("worker", "work")).as("the node that paused it, at once").isTrue();
        assertThat(b.holds("worker", "work")).as("another node until its pulse").isFalse();

        b.heard(pulse(db));
        assertThat(b.holds("worker", "work")).isTrue();
        assertThat(b.holds("worker", null)).isTrue();
        assertThat(b.holds("other", "work")).isFalse();
        assertThat(b.paused()).singleElement().satisfies(p -> {
            assertThat(p.by()).isEqualTo("alice");
            assertThat(p.since()).isNotNull();
        });

        FireResult one = fire(rt, "work", "k-1");
        FireResult two = fire(rt, "work", "k-2");
        FireResult three = fire(rt, "work", "k-3");
        assertThat(java.util.List.of(one.kind(), two.kind(), three.kind())).as("stored and queued, not dropped")
                .containsOnly(Kind.QUEUED);
        assertThat(launcher.episode(one.episodeId()).queued()).isTrue();
        assertThat(launcher.startedIds()).as("nothing starts while paused").isEmpty();
        assertThat(rt.queuedCount()).isEqualTo(3);
        assertThat(rt.heldCount()).isEqualTo(3);
        rt.wake();
        assertThat(launcher.startedIds()).as("a drain while paused starts nothing").isEmpty();

        assertThat(set(db, PauseTarget.actor("worker"), false)).isTrue();
        assertThat(launcher.startedIds()).as("not before the pulse").isEmpty();
        b.heard(pulse(db));
        assertThat(launcher.startedIds()).as("the resume starts the waiting work in order, up to the slots")
                .containsExactly(one.episodeId(), two.episodeId());
        rt.exited(one.episodeId());
        assertThat(launcher.startedIds()).containsExactly(one.episodeId(), two.episodeId(), three.episodeId());
        assertThat(rt.queuedCount()).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_paused_expectation_holds_only_its_own_work_and_queued_work_of_others_passes_it(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Pauses b = node(db);
        RecordingLauncher launcher = new RecordingLauncher();
        ActorRuntime rt = runtime(launcher, b, Overflow.QUEUE, "slow", "fast");

        set(db, PauseTarget.expectation("worker", "slow"), true);
        b.heard(pulse(db));

        FireResult slow = fire(rt, "slow", "s-1");
        FireResult fast = fire(rt, "fast", "f-1");
        assertThat(slow.kind()).isEqualTo(Kind.QUEUED);
        assertThat(fast.kind()).isEqualTo(Kind.STARTED);
        assertThat(rt.paused("slow")).isTrue();
        assertThat(rt.paused("fast")).isFalse();
        assertThat(rt.paused()).isFalse();

        // a queued entry of the paused expectation keeps its place; one behind it starts when a slot frees
        FireResult fast2 = fire(rt, "fast", "f-2");
        FireResult fast3 = fire(rt, "fast", "f-3");
        assertThat(fast3.kind()).isEqualTo(Kind.QUEUED);
        rt.exited(fast.episodeId());
        assertThat(launcher.startedIds()).doesNotContain(slow.episodeId()).contains(fast3.episodeId());

        // restarts of the paused expectation's episodes wait too: the sweep's and a trigger-only node's
        rt.recover("recovered-slow", null, "slow");
        rt.dispatch("dispatched-slow", false, "slow");
        rt.exited(fast3.episodeId());
        assertThat(launcher.startedIds()).doesNotContain(slow.episodeId(), "recovered-slow", "dispatched-slow");
        assertThat(rt.heldCount()).isEqualTo(3);

        set(db, PauseTarget.expectation("worker", "slow"), false);
        b.heard(pulse(db));
        assertThat(launcher.startedIds()).as("in queue order, up to the free slot").contains(slow.episodeId())
                .doesNotContain("recovered-slow");
        rt.exited(fast2.episodeId());
        rt.exited(slow.episodeId());
        assertThat(launcher.startedIds()).contains("recovered-slow", "dispatched-slow");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void shedding_the_oldest_to_make_room_never_sheds_work_a_pause_holds(Vendor vendor) {
        TestJpa db = own.open(vendor);
        Pauses b = node(db);
        RecordingLauncher launcher = new RecordingLauncher();
        ActorRuntime rt = runtime(launcher, b, Overflow.SHED_OLDEST, "slow", "fast");
        set(db, PauseTarget.expectation("worker", "slow"), true);
        b.heard(pulse(db));

        FireResult slow = fire(rt, "slow", "s-1");
        fire(rt, "fast", "f-1");
        fire(rt, "fast", "f-2");
        FireResult f3 = fire(rt, "fast", "f-3");
        assertThat(launcher.cancelled).isEmpty();
        fire(rt, "fast", "f-4");
        assertThat(launcher.cancelled).as("the oldest not held makes room").containsExactly(f3.episodeId());
        assertThat(launcher.startedIds()).doesNotContain(slow.episodeId());
        assertThat(rt.heldCount()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void every_change_moves_the_fingerprint_and_a_repeated_one_changes_nothing(Vendor vendor) {
        TestJpa db = own.open(vendor);
        long empty = pulse(db);
        assertThat(set(db, PauseTarget.workflow("orders"), false)).as("resume of a target never paused").isFalse();
        assertThat(pulse(db)).isEqualTo(empty);

        assertThat(set(db, PauseTarget.workflow("orders"), true)).isTrue();
        long paused = pulse(db);
        assertThat(paused).isNotEqualTo(empty);
        assertThat(set(db, PauseTarget.workflow("orders"), true)).as("already paused").isFalse();
        assertThat(pulse(db)).isEqualTo(paused);

        Pauses b = node(db);
        assertThat(b.workflowPaused("orders")).isTrue();
        assertThat(set(db, PauseTarget.workflow("orders"), false)).isTrue();
        assertThat(set(db, PauseTarget.workflow("orders"), true)).isTrue();
        assertThat(pulse(db)).as("a resume and a pause in between are seen").isNotEqualTo(paused);
        set(db, PauseTarget.workflow("orders"), false);
        b.heard(pulse(db));
        assertThat(b.workflowPaused("orders")).isFalse();
        assertThat(b.paused()).isEmpty();
    }
}
