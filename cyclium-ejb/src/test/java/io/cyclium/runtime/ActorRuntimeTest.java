package io.cyclium.runtime;

import io.cyclium.problem.Problem;

import io.cyclium.timing.Jitter;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.Overflow;
import io.cyclium.keys.DedupeKeys;

import static io.cyclium.actor.TestActors.actor;
import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.runtime.FireResult.Kind;
import io.cyclium.actor.trigger.TestJson;
import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.ManualScheduler;
import io.cyclium.testing.MutableClock;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import io.cyclium.episode.DebouncedTrigger;
import org.junit.jupiter.api.Test;

class ActorRuntimeTest {

    private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");
    private static final TriggerInfo SCHEDULED = new TriggerInfo(TriggerInfo.SCHEDULE, null, null, null, T0);
    private static final TriggerInfo MANUAL = new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null);

    private final MutableClock clock = new MutableClock(T0);
    private final ManualScheduler timers = new ManualScheduler(clock);
    private final RecordingLauncher launcher = new RecordingLauncher();

    private ActorRuntime runtime(ActorDefinition actor, int slots) {
        return runtime(actor, slots, null);
    }

    private ActorRuntime.Context context(String node, String stack, String env) {
        return new ActorRuntime.Context(timers, clock, Telemetry.NOOP, node, stack, env, new Jitter(Duration.ZERO),
                () -> io.cyclium.config.NodeMode.FULL);
    }

    private ActorRuntime runtime(ActorDefinition actor, int slots, String env) {
        return new ActorRuntime(actor, slots, launcher, context("node-1", "stack-a", env));
    }

    /** An actor with one expectation, "work", and {@code slots} slots on this node. */
    private ActorRuntime worker(Overflow overflow, int slots) {
        return runtime(actor("worker", overflow, expectation("work")), slots);
    }

    /** A scheduled fire of the actor's first expectation, with {@code key} as its dedupe key. */
    private static FireResult fire(ActorRuntime rt, String key) {
        return rt.fire(rt.definition().expectations().get(0), SCHEDULED, key, false);
    }

    private static ExpectationDefinition first(ActorRuntime rt) {
        return rt.definition().expectations().get(0);
    }

    private static void finish(ActorRuntime rt, String expectationId, String status) {
        rt.finished(new EpisodeFinished("some-episode", rt.definition().id(), expectationId, status, null, null, null));
    }

    private static CycliumEvent event(String type, String id, String payload) {
        return new CycliumEvent(type, id, TestJson.object(payload));
    }

    // ---- slots and the queue ---------------------------------------------------------------------

    @Test
    void fires_up_to_the_slot_count_start_at_once_with_this_node_as_run_node() {
        ActorRuntime rt = worker(Overflow.QUEUE, 2);

        FireResult a = fire(rt, "k-a");
        FireResult b = fire(rt, "k-b");

        assertThat(a.kind()).isEqualTo(Kind.STARTED);
        assertThat(b.kind()).isEqualTo(Kind.STARTED);
        assertThat(launcher.startedIds()).containsExactly(a.episodeId(), b.episodeId());
        NewEpisode row = launcher.episode(a.episodeId());
        assertThat(row.runNode()).isEqualTo("node-1");
        assertThat(row.queued()).isFalse();
        assertThat(row.dedupeKey()).isEqualTo("k-a");
        assertThat(launcher.started.get(0).given().ref().id()).isEqualTo(a.episodeId());
        assertThat(launcher.started.get(0).resume()).isFalse();
        assertThat(rt.activeCount()).isEqualTo(2);
    }

    @Test
    void an_episode_id_is_a_version_7_uuid_of_the_runtimes_clock_so_later_episodes_sort_after_earlier_ones() {
        ActorRuntime rt = worker(Overflow.QUEUE, 4);

        String first = fire(rt, "k-a").episodeId();
        clock.advance(Duration.ofMillis(1));
        String second = fire(rt, "k-b").episodeId();

        java.util.UUID id = java.util.UUID.fromString(first);
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(T0.toEpochMilli());
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void a_fire_beyond_the_slots_is_inserted_as_queued_on_this_node_and_not_started() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        fire(rt, "k-a");

        FireResult b = fire(rt, "k-b");

        assertThat(b.kind()).isEqualTo(Kind.QUEUED);
        NewEpisode row = launcher.episode(b.episodeId());
        assertThat(row.queued()).isTrue();
        // the node holding it in its queue is named, so its heartbeat can vouch for the wait
        assertThat(row.runNode()).isEqualTo("node-1");
        assertThat(launcher.startedIds()).doesNotContain(b.episodeId());
        assertThat(rt.queuedCount()).isEqualTo(1);
    }

    @Test
    void the_queued_and_running_gauges_read_the_runtime_at_scrape_time_and_a_rebuilt_runtime_takes_them_over() {
        io.cyclium.testing.RecordingTelemetry telemetry = new io.cyclium.testing.RecordingTelemetry();
        ActorDefinition actor = actor("worker", Overflow.QUEUE, expectation("work"));
        ActorRuntime.Context ctx = new ActorRuntime.Context(timers, clock, telemetry, "node-1", "stack-a", null,
                new Jitter(Duration.ZERO), () -> io.cyclium.config.NodeMode.FULL);
        ActorRuntime rt = new ActorRuntime(actor, 1, launcher, ctx);
        String a = fire(rt, "k-a").episodeId();
        fire(rt, "k-b");
        fire(rt, "k-c");

        assertThat(telemetry.gauge("episode_running", "actor", "worker")).isEqualTo(1);
        assertThat(telemetry.gauge("episode_queued", "actor", "worker")).isEqualTo(2);
        rt.exited(a);
        assertThat(telemetry.gauge("episode_queued", "actor", "worker")).isEqualTo(1);

        new ActorRuntime(actor, 1, launcher, ctx);
        assertThat(telemetry.gauge("episode_queued", "actor", "worker")).as("the new runtime's queue, empty").isZero();
    }

    @Test
    void queued_episodes_start_in_fifo_order_as_slots_are_freed() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        String b = fire(rt, "k-b").episodeId();
        String c = fire(rt, "k-c").episodeId();
        String d = fire(rt, "k-d").episodeId();

        rt.exited(a);
        assertThat(launcher.startedIds()).containsExactly(a, b);
        rt.exited(b);
        rt.exited(c);

        assertThat(launcher.startedIds()).containsExactly(a, b, c, d);
        assertThat(launcher.started.get(1).given()).as("a fresh queued episode starts from its row as inserted, unread")
                .satisfies(given -> {
                    assertThat(given.ref().id()).isEqualTo(b);
                    assertThat(given.attempts()).isEqualTo(1);
                });
        assertThat(rt.queuedCount()).isZero();
        assertThat(rt.activeCount()).isEqualTo(1);
    }

    @Test
    void dropped_shed_and_deferred_episodes_are_each_counted_for_their_actor() {
        io.cyclium.testing.RecordingTelemetry telemetry = new io.cyclium.testing.RecordingTelemetry();
        java.util.function.BiFunction<Overflow, io.cyclium.config.NodeMode, ActorRuntime> runtime = (overflow, mode) ->
                new ActorRuntime(actor("worker", overflow, expectation("work")), 1, launcher,
                        new ActorRuntime.Context(timers, clock, telemetry, "node-1", "stack-a", null,
                                new Jitter(Duration.ZERO), () -> mode));
        ActorRuntime dropping = runtime.apply(Overflow.DROP, io.cyclium.config.NodeMode.FULL);
        fire(dropping, "d-1");
        assertThat(fire(dropping, "d-2").kind()).isEqualTo(Kind.DROPPED);
        ActorRuntime shedding = runtime.apply(Overflow.SHED_OLDEST, io.cyclium.config.NodeMode.FULL);
        fire(shedding, "s-1");
        fire(shedding, "s-2");
        fire(shedding, "s-3");
        ActorRuntime deferring = runtime.apply(Overflow.QUEUE, io.cyclium.config.NodeMode.TRIGGER_ONLY);
        assertThat(fire(deferring, "t-1").kind()).isEqualTo(Kind.DEFERRED);

        assertThat(telemetry.count("episode_dropped")).isEqualTo(1);
        assertThat(telemetry.count("episode_shed")).isEqualTo(1);
        assertThat(telemetry.count("episode_deferred")).isEqualTo(1);
        assertThat(launcher.deferred).as("stored for a full node to run").hasSize(1);
    }

    @Test
    void drop_overflow_returns_dropped_and_inserts_nothing() {
        ActorRuntime rt = worker(Overflow.DROP, 1);
        fire(rt, "k-a");

        FireResult b = fire(rt, "k-b");

        assertThat(b.kind()).isEqualTo(Kind.DROPPED);
        assertThat(b.episodeId()).isNull();
        assertThat(launcher.insertedKeys()).containsExactly("k-a");
        assertThat(rt.queuedCount()).isZero();
    }

    @Test
    void shed_oldest_cancels_the_oldest_queued_episode_and_queues_the_new_one() {
        ActorRuntime rt = worker(Overflow.SHED_OLDEST, 1);
        String a = fire(rt, "k-a").episodeId();
        String b = fire(rt, "k-b").episodeId();

        FireResult c = fire(rt, "k-c");

        assertThat(c.kind()).isEqualTo(Kind.QUEUED);
        assertThat(launcher.cancelled).containsExactly(b);
        rt.exited(a);
        assertThat(launcher.startedIds()).containsExactly(a, c.episodeId());
    }

    @Test
    void shed_oldest_never_sheds_a_recovered_or_resumed_episode() {
        ActorRuntime rt = worker(Overflow.SHED_OLDEST, 1);
        String a = fire(rt, "k-a").episodeId();
        rt.recover("recovered-1", new HeldClaim("episode:recovered-1", 4, false));
        rt.resume("resumed-1", "exp");
        String b = fire(rt, "k-b").episodeId();

        fire(rt, "k-c");

        assertThat(launcher.cancelled).containsExactly(b);
        rt.exited(a);
        rt.exited("recovered-1");
        assertThat(launcher.startedIds()).containsExactly(a, "recovered-1", "resumed-1");
    }

    @Test
    void a_duplicate_key_returns_duplicate_and_gives_the_reserved_slot_back() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        launcher.keysTaken();

        FireResult lost = fire(rt, "k-a");

        assertThat(lost.kind()).isEqualTo(Kind.DUPLICATE);
        assertThat(lost.episodeId()).isNull();
        assertThat(launcher.started).isEmpty();
        launcher.keysFree();
        assertThat(fire(rt, "k-b").kind()).as("the one slot is free again").isEqualTo(Kind.STARTED);
    }

    @Test
    void a_duplicate_key_beyond_the_slots_queues_nothing() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        launcher.keysTaken();

        assertThat(fire(rt, "k-b").kind()).isEqualTo(Kind.DUPLICATE);

        assertThat(rt.queuedCount()).isZero();
        rt.exited(a);
        assertThat(launcher.startedIds()).containsExactly(a);
    }

    @Test
    void an_insert_that_throws_gives_the_reserved_slot_back() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        launcher.failNextInsert(new IllegalStateException("connection reset"));

        assertThatThrownBy(() -> fire(rt, "k-a")).hasMessage("connection reset");

        assertThat(fire(rt, "k-a").kind()).isEqualTo(Kind.STARTED);
    }

    // ---- recover and resume ----------------------------------------------------------------------

    @Test
    void a_recovered_episode_waits_for_a_slot_and_starts_with_the_claim_recovery_took() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        HeldClaim claim = new HeldClaim("episode:recovered-1", 4, false);

        rt.recover("recovered-1", claim);
        assertThat(launcher.startedIds()).containsExactly(a);
        rt.exited(a);

        RecordingLauncher.Start start = launcher.started.get(1);
        assertThat(start.episodeId()).isEqualTo("recovered-1");
        assertThat(start.resume()).isTrue();
        assertThat(start.handedClaim()).isSameAs(claim);
        assertThat(launcher.inserted).as("its row already exists").hasSize(1);
    }

    @Test
    void recover_and_resume_are_never_dropped_even_when_the_actor_drops_overflow() {
        ActorRuntime rt = worker(Overflow.DROP, 1);
        String a = fire(rt, "k-a").episodeId();
        assertThat(fire(rt, "k-b").kind()).isEqualTo(Kind.DROPPED);

        rt.recover("recovered-1", new HeldClaim("episode:recovered-1", 4, false));
        rt.resume("resumed-1", "exp");

        assertThat(rt.queuedCount()).isEqualTo(2);
        rt.exited(a);
        rt.exited("recovered-1");
        assertThat(launcher.startedIds()).containsExactly(a, "recovered-1", "resumed-1");
        assertThat(launcher.started.get(2).resume()).isTrue();
        assertThat(launcher.started.get(2).handedClaim()).isNull();
    }

    @Test
    void a_second_recover_of_a_queued_episode_keeps_the_first_lease_and_releases_the_second() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        HeldClaim second = new HeldClaim("episode:recovered-1", 5, false);

        rt.recover("recovered-1", new HeldClaim("episode:recovered-1", 4, false));
        rt.recover("recovered-1", second);

        assertThat(rt.queuedCount()).isEqualTo(1);
        assertThat(launcher.released).as("a lease nobody will run with is given up, not renewed for ever")
                .containsExactly(second);
        rt.exited(a);
        assertThat(launcher.started.get(1).handedClaim().fence()).isEqualTo(4);
        rt.exited("recovered-1");
        assertThat(launcher.startedIds()).containsExactly(a, "recovered-1");
    }

    @Test
    void a_second_recover_of_a_running_episode_releases_the_lease_it_brought() {
        ActorRuntime rt = worker(Overflow.QUEUE, 2);
        HeldClaim second = new HeldClaim("episode:recovered-1", 5, false);

        rt.recover("recovered-1", new HeldClaim("episode:recovered-1", 4, false));
        rt.recover("recovered-1", second);

        assertThat(launcher.startedIds()).containsExactly("recovered-1");
        assertThat(rt.queuedCount()).isZero();
        assertThat(launcher.released).containsExactly(second);
    }

    @Test
    void a_queued_episode_recovered_by_this_nodes_own_sweep_starts_with_the_sweeps_lease() {
        // A late heartbeat lets the node's own sweep take an episode this node still has queued.
        // Before: the second arrival was ignored, the queued task found the key busy (held by this
        // very node), gave up, and the sweep's lease was renewed for ever: the episode never ran.
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        rt.dispatch("deferred-1", false);
        HeldClaim sweepLease = new HeldClaim("episode:deferred-1", 7, false);

        rt.recover("deferred-1", sweepLease);

        assertThat(rt.queuedCount()).isEqualTo(1);
        assertThat(rt.queuedClaims()).containsExactly(sweepLease);
        assertThat(launcher.released).isEmpty();
        assertThat(launcher.marked).as("queued again on this node: the sweep had cleared run_node")
                .containsExactly("deferred-1", "deferred-1");
        rt.exited(a);
        RecordingLauncher.Start start = launcher.started.get(1);
        assertThat(start.episodeId()).isEqualTo("deferred-1");
        assertThat(start.handedClaim()).isSameAs(sweepLease);
        assertThat(start.resume()).as("the sweep's restart resumes from the checkpoint").isTrue();
    }

    @Test
    void a_handed_lease_is_released_when_the_queued_episode_cannot_start() {
        RecordingLauncher refusing = new RecordingLauncher() {
            @Override
            public void start(String episodeId, io.cyclium.episode.RunSnapshot given, boolean resume, HeldClaim handedClaim,
                    Runnable exited) {
                throw new java.util.concurrent.RejectedExecutionException("executor shut down");
            }
        };
        ActorRuntime rt = new ActorRuntime(actor("worker", Overflow.QUEUE, expectation("work")), 1, refusing,
                context("node-1", "stack-a", null));
        HeldClaim lease = new HeldClaim("episode:recovered-1", 4, false);

        rt.recover("recovered-1", lease);

        assertThat(refusing.released).containsExactly(lease);
        assertThat(rt.activeCount()).isZero();
    }

    // ---- stopping --------------------------------------------------------------------------------

    @Test
    void after_stop_accepting_fire_returns_not_accepting_and_inserts_nothing() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);

        rt.stopAccepting();

        assertThat(fire(rt, "k-a").kind()).isEqualTo(Kind.NOT_ACCEPTING);
        assertThat(rt.fire(first(rt), MANUAL, null, true).kind()).isEqualTo(Kind.NOT_ACCEPTING);
        assertThat(launcher.inserted).isEmpty();
    }

    @Test
    void after_stop_accepting_a_freed_slot_starts_nothing_from_the_queue() {
        ActorRuntime rt = worker(Overflow.QUEUE, 1);
        String a = fire(rt, "k-a").episodeId();
        fire(rt, "k-b");

        rt.stopAccepting();
        rt.exited(a);

        assertThat(launcher.startedIds()).containsExactly(a);
    }

    // ---- circuit breaker -------------------------------------------------------------------------

    private ActorRuntime breakerRuntime(Overflow overflow, int slots) {
        return runtime(actor("monitor", overflow, expectation("check").breaker(2, Duration.ofSeconds(30))), slots);
    }

    /** Two failed episodes: the threshold of {@link #breakerRuntime}'s breaker. */
    private static void openBreaker(ActorRuntime rt) {
        finish(rt, "check", "failed");
        finish(rt, "check", "failed");
    }

    @Test
    void the_breaker_opens_after_threshold_consecutive_failed_episodes() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        finish(rt, "check", "failed");
        assertThat(fire(rt, "k-1").kind()).isEqualTo(Kind.STARTED);

        finish(rt, "check", "failed");

        assertThat(rt.breakerState("check")).isEqualTo("open");
        FireResult rejected = fire(rt, "k-2");
        assertThat(rejected.kind()).isEqualTo(Kind.REJECTED_BY_BREAKER);
        assertThat(launcher.insertedKeys()).containsExactly("k-1");
    }

    @Test
    void a_success_between_failures_keeps_the_breaker_closed() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);

        finish(rt, "check", "failed");
        finish(rt, "check", "done");
        finish(rt, "check", "failed");

        assertThat(rt.breakerState("check")).isEqualTo("closed");
        assertThat(fire(rt, "k-1").kind()).isEqualTo(Kind.STARTED);
    }

    @Test
    void a_canceled_episode_counts_as_failed_and_a_partially_failed_one_as_done() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);

        finish(rt, "check", "failed");
        finish(rt, "check", "partially_failed");
        finish(rt, "check", "failed");
        assertThat(rt.breakerState("check")).isEqualTo("closed");
        finish(rt, "check", "canceled");

        assertThat(rt.breakerState("check")).isEqualTo("open");
    }

    @Test
    void an_open_breaker_rejects_fires_until_half_open_after_has_passed_on_the_clock() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);

        clock.advance(Duration.ofSeconds(30).minusMillis(1));
        assertThat(fire(rt, "k-1").kind()).isEqualTo(Kind.REJECTED_BY_BREAKER);
        clock.advance(Duration.ofMillis(1));

        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.STARTED);
        assertThat(rt.breakerState("check")).isEqualTo("half_open");
    }

    @Test
    void a_half_open_breaker_lets_exactly_one_probe_through() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);
        clock.advance(Duration.ofSeconds(30));

        assertThat(fire(rt, "k-probe").kind()).isEqualTo(Kind.STARTED);
        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.REJECTED_BY_BREAKER);
        clock.advance(Duration.ofMinutes(5));
        assertThat(fire(rt, "k-3").kind()).as("still waiting for the probe").isEqualTo(Kind.REJECTED_BY_BREAKER);

        assertThat(launcher.insertedKeys()).containsExactly("k-probe");
    }

    @Test
    void a_done_probe_closes_the_breaker() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);
        clock.advance(Duration.ofSeconds(30));
        fire(rt, "k-probe");

        finish(rt, "check", "done");

        assertThat(rt.breakerState("check")).isEqualTo("closed");
        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.STARTED);
        assertThat(fire(rt, "k-3").kind()).isEqualTo(Kind.STARTED);
    }

    @Test
    void a_failed_probe_reopens_the_breaker_for_another_half_open_period() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);
        clock.advance(Duration.ofSeconds(30));
        fire(rt, "k-probe");

        finish(rt, "check", "failed");

        assertThat(rt.breakerState("check")).isEqualTo("open");
        clock.advance(Duration.ofSeconds(29));
        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.REJECTED_BY_BREAKER);
        clock.advance(Duration.ofSeconds(1));
        assertThat(fire(rt, "k-3").kind()).isEqualTo(Kind.STARTED);
    }

    @Test
    void a_manual_fire_that_bypasses_the_breaker_passes_an_open_breaker() {
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);

        FireResult manual = rt.fire(first(rt), MANUAL, null, true);

        assertThat(manual.kind()).isEqualTo(Kind.STARTED);
        assertThat(rt.breakerState("check")).isEqualTo("open");
    }

    @Test
    void a_probe_whose_key_another_node_took_does_not_hold_the_breaker_half_open() {
        // This node never sees that episode finish, so its breaker must not wait for it.
        ActorRuntime rt = breakerRuntime(Overflow.QUEUE, 10);
        openBreaker(rt);
        clock.advance(Duration.ofSeconds(30));
        launcher.keysTaken();
        assertThat(fire(rt, "k-probe").kind()).isEqualTo(Kind.DUPLICATE);
        launcher.keysFree();

        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.STARTED);
        assertThat(fire(rt, "k-3").kind()).isEqualTo(Kind.REJECTED_BY_BREAKER);
    }

    @Test
    void a_dropped_probe_does_not_hold_the_breaker_half_open() {
        ActorRuntime rt = breakerRuntime(Overflow.DROP, 1);
        String busy = fire(rt, "k-busy").episodeId();
        openBreaker(rt);
        clock.advance(Duration.ofSeconds(30));
        assertThat(fire(rt, "k-probe").kind()).isEqualTo(Kind.DROPPED);

        rt.exited(busy);

        assertThat(fire(rt, "k-2").kind()).isEqualTo(Kind.STARTED);
    }

    @Test
    void finished_episodes_of_another_expectation_leave_the_breaker_alone() {
        ActorRuntime rt = runtime(actor("monitor", Overflow.QUEUE,
                expectation("check").breaker(2, Duration.ofSeconds(30)), expectation("report")), 10);

        finish(rt, "report", "failed");
        finish(rt, "report", "failed");

        assertThat(rt.breakerState("check")).isEqualTo("closed");
        assertThat(rt.breakerState("report")).isEqualTo("none");
        assertThat(rt.fire(rt.definition().expectation("report").orElseThrow(), SCHEDULED, "k-r", false).kind())
                .isEqualTo(Kind.STARTED);
    }

    // ---- debounce --------------------------------------------------------------------------------

    private ActorRuntime debounced() {
        return runtime(actor("monitor", Overflow.QUEUE,
                expectation("load").on("host.load").debounce(Duration.ofSeconds(10), "host")), 10);
    }

    @Test
    void each_event_on_one_subject_within_the_window_replaces_the_subjects_stored_trigger_and_nothing_fires_yet() {
        ActorRuntime rt = debounced();
        List<Match> first = rt.admit(event("host.load", "e1", "{\"host\":\"db-1\",\"load\":0.7}"));
        timers.advance(Duration.ofSeconds(4));
        rt.admit(event("host.load", "e2", "{\"host\":\"db-1\",\"load\":0.8}"));
        List<Match> last = rt.admit(event("host.load", "e3", "{\"host\":\"db-1\",\"load\":0.9}"));

        assertThat(first).singleElement().extracting(Match::outcome).isEqualTo(Outcome.DEBOUNCED);
        assertThat(launcher.debounced).as("one stored row per subject, replaced by each event")
                .extracting(DebouncedTrigger::id).containsOnly(launcher.debounced.get(0).id()).hasSize(3);
        DebouncedTrigger stored = launcher.debounced.get(2);
        assertThat(stored.trigger().eventId()).isEqualTo("e3");
        assertThat(stored.trigger().payload()).isEqualTo(TestJson.object("{\"host\":\"db-1\",\"load\":0.9}"));
        assertThat(stored.dedupeKey()).isEqualTo(last.get(0).dedupeKey());
        assertThat(stored.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(stored.actorId()).isEqualTo("monitor");
        assertThat(stored.expectationId()).isEqualTo("load");
        assertThat(stored.subject()).isEqualTo("db-1");
        assertThat(stored.sourceStack()).isEqualTo("stack-a");
        timers.advance(Duration.ofMinutes(1));
        assertThat(launcher.inserted).as("the window is the database's, fired by any node's pass").isEmpty();
    }

    @Test
    void a_debounced_event_is_stored_and_not_held_in_a_timer_of_this_node() {
        ActorRuntime rt = debounced();
        rt.admit(event("host.load", "e1", "{\"host\":\"db-1\",\"load\":0.7}"));

        assertThat(timers.pendingCount()).as("nothing that a SIGTERM or kill -9 of this node would lose").isZero();
        assertThat(launcher.debounced).hasSize(1);
    }

    @Test
    void events_on_two_subjects_are_debounced_separately() {
        ActorRuntime rt = debounced();
        rt.admit(event("host.load", "e1", "{\"host\":\"db-1\",\"load\":0.7}"));
        rt.admit(event("host.load", "e2", "{\"host\":\"db-2\",\"load\":0.8}"));

        assertThat(launcher.debounced).extracting(DebouncedTrigger::id).doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void a_stored_debounced_trigger_fires_stamped_with_the_stack_and_env_of_the_node_that_took_the_event() {
        ActorRuntime taker = runtime(actor("monitor", Overflow.QUEUE,
                expectation("load").on("host.load").debounce(Duration.ofSeconds(10), "host")), 10, "prod");
        taker.admit(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        DebouncedTrigger row = launcher.debounced.get(0);
        ActorRuntime firer = new ActorRuntime(taker.definition(), 10, launcher, context("node-2", "stack-b", "prod"));

        FireResult fired = firer.fireDebounced(row).orElseThrow();

        assertThat(fired.kind()).isEqualTo(Kind.STARTED);
        NewEpisode episode = launcher.episode(fired.episodeId());
        assertThat(episode.sourceStack()).isEqualTo("stack-a");
        assertThat(episode.sourceEnv()).isEqualTo("prod");
        assertThat(episode.runNode()).isEqualTo("node-2");
        assertThat(episode.dedupeKey()).isEqualTo(row.dedupeKey());
        assertThat(episode.trigger().eventId()).isEqualTo("e1");
    }

    @Test
    void a_disabled_node_stores_no_debounced_trigger_and_says_so() {
        ActorRuntime rt = new ActorRuntime(actor("monitor", Overflow.QUEUE,
                expectation("load").on("host.load").debounce(Duration.ofSeconds(10), "host")), 10, launcher,
                new ActorRuntime.Context(timers, clock, Telemetry.NOOP, "node-1", "stack-a", null, new Jitter(Duration.ZERO),
                        () -> io.cyclium.config.NodeMode.DISABLED));

        assertThat(rt.admit(event("host.load", "e1", "{\"host\":\"db-1\"}"))).singleElement()
                .extracting(Match::outcome).isEqualTo(Outcome.DISABLED);
        assertThat(launcher.debounced).isEmpty();
    }

    // ---- what each match answers ---------------------------------------------------------------

    private ActorRuntime onEvents(Overflow overflow, int slots) {
        return runtime(actor("worker", overflow, expectation("work").on("job.new")), slots);
    }

    @Test
    void a_stored_match_names_its_episode_and_a_repeat_is_coalesced_into_it() {
        ActorRuntime rt = onEvents(Overflow.QUEUE, 2);
        Match stored = rt.admit(event("job.new", "j1", "{}")).get(0);
        launcher.keysTaken();
        Match repeat = rt.admit(event("job.new", "j1", "{}")).get(0);

        assertThat(stored.outcome()).isEqualTo(Outcome.STORED);
        assertThat(stored.id()).isEqualTo(launcher.inserted.get(0).id());
        assertThat(stored.actor()).isEqualTo("worker");
        assertThat(stored.expectation()).isEqualTo("work");
        assertThat(repeat.outcome()).isEqualTo(Outcome.COALESCED);
        assertThat(repeat.reason()).isEqualTo("duplicate");
        assertThat(repeat.dedupeKey()).isEqualTo(stored.dedupeKey());
        assertThat(List.of(stored, repeat)).allMatch(m -> m.outcome().stored());
    }

    @Test
    void an_event_dropped_for_overflow_is_not_stored_and_says_why() {
        ActorRuntime rt = onEvents(Overflow.DROP, 1);
        rt.admit(event("job.new", "j1", "{}"));

        Match dropped = rt.admit(event("job.new", "j2", "{}")).get(0);

        assertThat(dropped.outcome()).isEqualTo(Outcome.DROPPED);
        assertThat(dropped.outcome().stored()).isFalse();
        assertThat(dropped.reason()).isEqualTo("overflow");
        assertThat(dropped.id()).isNull();
    }

    @Test
    void an_event_refused_by_an_open_breaker_is_dropped_with_the_time_until_it_half_opens() {
        ActorRuntime rt = runtime(actor("monitor", Overflow.QUEUE,
                expectation("check").on("host.check").breaker(2, Duration.ofSeconds(30))), 10);
        finish(rt, "check", "failed");
        finish(rt, "check", "failed");
        clock.advance(Duration.ofSeconds(10));

        Match refused = rt.admit(event("host.check", "c1", "{}")).get(0);

        assertThat(refused.outcome()).isEqualTo(Outcome.DROPPED);
        assertThat(refused.reason()).isEqualTo("breaker_open");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(20));
        assertThat(launcher.inserted).isEmpty();
    }

    @Test
    void an_event_on_a_node_disabled_for_the_actor_is_not_stored_and_says_disabled() {
        ActorRuntime rt = new ActorRuntime(actor("worker", Overflow.QUEUE, expectation("work").on("job.new")), 2, launcher,
                new ActorRuntime.Context(timers, clock, Telemetry.NOOP, "node-1", "stack-a", null, new Jitter(Duration.ZERO),
                        () -> io.cyclium.config.NodeMode.DISABLED));

        Match m = rt.admit(event("job.new", "j1", "{}")).get(0);

        assertThat(m.outcome()).isEqualTo(Outcome.DISABLED);
        assertThat(m.outcome().stored()).isFalse();
        assertThat(launcher.inserted).isEmpty();
    }

    @Test
    void an_event_within_the_cooldown_is_not_stored_and_names_the_time_left() {
        ActorRuntime rt = cooled();
        rt.admit(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        clock.advance(Duration.ofSeconds(45));

        Match m = rt.admit(event("host.load", "e2", "{\"host\":\"db-1\"}")).get(0);

        assertThat(m.outcome()).isEqualTo(Outcome.COOLING_DOWN);
        assertThat(m.reason()).isEqualTo("cooldown");
        assertThat(m.retryAfter()).isEqualTo(Duration.ofSeconds(15));
    }

    // ---- cooldown --------------------------------------------------------------------------------

    private ActorRuntime cooled() {
        return runtime(actor("monitor", Overflow.QUEUE,
                expectation("load").on("host.load").cooldown(Duration.ofMinutes(1), "host")), 10);
    }

    @Test
    void a_second_event_on_the_same_subject_within_the_cooldown_is_dropped() {
        ActorRuntime rt = cooled();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        timers.runDue();

        timers.advance(Duration.ofSeconds(59));
        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-1\"}"));
        timers.runDue();

        assertThat(launcher.inserted).extracting(row -> row.trigger().eventId()).containsExactly("e1");
    }

    @Test
    void an_event_after_the_cooldown_fires_again() {
        ActorRuntime rt = cooled();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        timers.runDue();

        timers.advance(Duration.ofMinutes(1));
        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-1\"}"));
        timers.runDue();

        assertThat(launcher.inserted).extracting(row -> row.trigger().eventId()).containsExactly("e1", "e2");
    }

    @Test
    void an_event_whose_transaction_rolled_back_leaves_no_cooldown_so_the_same_event_sent_again_is_stored() {
        ActorRuntime rt = cooled();
        launcher.holdCommits();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        launcher.rollBackHeld();

        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        timers.runDue();
        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-1\"}"));
        timers.runDue();

        assertThat(launcher.inserted).as("sent again after the rollback: stored, and cooling the subject from then")
                .extracting(row -> row.trigger().eventId()).containsExactly("e1");
    }

    @Test
    void on_a_trigger_only_node_a_deferral_rolled_back_with_its_transaction_leaves_no_cooldown_and_is_not_counted() {
        io.cyclium.testing.RecordingTelemetry telemetry = new io.cyclium.testing.RecordingTelemetry();
        ActorRuntime rt = new ActorRuntime(actor("monitor", Overflow.QUEUE,
                expectation("load").on("host.load").cooldown(Duration.ofMinutes(1), "host")), 10, launcher,
                new ActorRuntime.Context(timers, clock, telemetry, "node-1", "stack-a", null, new Jitter(Duration.ZERO),
                        () -> io.cyclium.config.NodeMode.TRIGGER_ONLY));
        launcher.holdCommits();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        launcher.rollBackHeld();
        assertThat(telemetry.count("episode_deferred")).as("nothing was deferred").isZero();

        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-1\"}"));

        assertThat(launcher.deferred).as("sent again after the rollback: deferred, and cooling the subject from then")
                .extracting(row -> row.trigger().eventId()).containsExactly("e1");
        assertThat(telemetry.count("episode_deferred")).isEqualTo(1);
    }

    @Test
    void an_event_whose_transaction_commits_later_keeps_the_subject_cooling() {
        ActorRuntime rt = cooled();
        launcher.holdCommits();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        launcher.commitHeld();

        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-1\"}"));
        timers.runDue();

        assertThat(launcher.inserted).extracting(row -> row.trigger().eventId()).containsExactly("e1");
    }

    @Test
    void the_cooldown_is_per_subject() {
        ActorRuntime rt = cooled();
        rt.onEvent(event("host.load", "e1", "{\"host\":\"db-1\"}"));
        timers.runDue();

        rt.onEvent(event("host.load", "e2", "{\"host\":\"db-2\"}"));
        timers.runDue();

        assertThat(launcher.inserted).extracting(row -> row.trigger().eventId()).containsExactly("e1", "e2");
    }

    // ---- event routing ---------------------------------------------------------------------------

    private ActorRuntime diskWatch(String env) {
        return runtime(actor("disk-watch", Overflow.QUEUE,
                expectation("var-full").on("disk.full", "mount=/var"),
                expectation("any-full").on("disk.full"),
                expectation("cpu-high").on("cpu.high")), 10, env);
    }

    @Test
    void on_event_fires_every_expectation_whose_type_and_filter_match() {
        ActorRuntime rt = diskWatch(null);
        CycliumEvent full = event("disk.full", "evt-7", "{\"mount\":\"/var\"}");

        Map<String, String> keys = rt.onEvent(full);
        timers.runDue();

        assertThat(keys).containsOnlyKeys("var-full", "any-full");
        assertThat(keys.get("var-full"))
                .isEqualTo(DedupeKeys.event("disk-watch", "var-full", "evt-7", "disk.full", full.payload()));
        assertThat(launcher.inserted).extracting(NewEpisode::expectationId)
                .containsExactlyInAnyOrder("var-full", "any-full");
        assertThat(launcher.inserted).allSatisfy(row -> {
            assertThat(row.trigger().type()).isEqualTo(TriggerInfo.EVENT);
            assertThat(row.trigger().eventType()).isEqualTo("disk.full");
        });
    }

    @Test
    void an_event_whose_payload_fails_the_filter_fires_only_the_unfiltered_expectation() {
        ActorRuntime rt = diskWatch(null);

        Map<String, String> keys = rt.onEvent(event("disk.full", "evt-8", "{\"mount\":\"/tmp\"}"));
        timers.runDue();

        assertThat(keys).containsOnlyKeys("any-full");
        assertThat(launcher.inserted).extracting(NewEpisode::expectationId).containsExactly("any-full");
    }

    @Test
    void an_event_of_a_type_no_expectation_watches_fires_nothing() {
        ActorRuntime rt = diskWatch(null);

        Map<String, String> keys = rt.onEvent(event("disk.cleaned", "evt-9", "{\"mount\":\"/var\"}"));
        timers.runDue();

        assertThat(keys).isEmpty();
        assertThat(launcher.inserted).isEmpty();
    }

    @Test
    void the_same_event_gets_the_same_dedupe_key_on_every_node() {
        ActorRuntime nodeA = diskWatch(null);
        ActorRuntime nodeB = diskWatch(null);
        JsonObject payload = TestJson.object("{\"mount\":\"/var\",\"used\":0.97}");

        String fromA = nodeA.onEvent(new CycliumEvent("disk.full", null, payload)).get("var-full");
        String fromB = nodeB.onEvent(new CycliumEvent("disk.full", null,
                TestJson.object("{\"used\":0.97,\"mount\":\"/var\"}"))).get("var-full");
        String other = nodeA.onEvent(new CycliumEvent("disk.full", null,
                TestJson.object("{\"mount\":\"/var\",\"used\":0.98}"))).get("var-full");

        assertThat(fromA).startsWith("event:disk-watch:var-full:").isEqualTo(fromB).isNotEqualTo(other);
    }

    @Test
    void in_env_rc_the_dedupe_key_ends_with_the_env() {
        ActorRuntime rt = diskWatch("rc");
        CycliumEvent full = event("disk.full", "evt-7", "{\"mount\":\"/var\"}");

        String key = rt.onEvent(full).get("var-full");
        timers.runDue();

        assertThat(key).isEqualTo(DedupeKeys.event("disk-watch", "var-full", "evt-7", "disk.full", full.payload()) + ":rc");
        assertThat(launcher.insertedKeys()).contains(key);
        assertThat(launcher.inserted).allSatisfy(row -> assertThat(row.sourceEnv()).isEqualTo("rc"));
    }

    // ---- durable intake ------------------------------------------------------------------------

    /** An actor "intake" whose expectation "take" runs on every {@code order.placed} event. */
    private ActorRuntime intake(int slots) {
        return runtime(actor("intake", Overflow.QUEUE, expectation("take").on("order.placed")), slots);
    }

    @Test
    void an_event_is_stored_before_on_event_returns_without_waiting_for_any_timer() {
        ActorRuntime rt = intake(1);

        Map<String, String> keys = rt.onEvent(event("order.placed", "o-1", "{\"order\":1}"));

        assertThat(launcher.inserted).as("no jitter timer stands between the event and its row").singleElement()
                .satisfies(row -> assertThat(row.dedupeKey()).isEqualTo(keys.get("take")));
        assertThat(timers.pendingCount()).isZero();
        assertThat(launcher.startedIds()).hasSize(1);
    }

    @Test
    void an_episode_fired_inside_a_callers_transaction_starts_only_after_that_transaction_commits() {
        ActorRuntime rt = intake(1);
        launcher.holdCommits();

        rt.onEvent(event("order.placed", "o-1", "{\"order\":1}"));

        assertThat(launcher.inserted).hasSize(1);
        assertThat(launcher.started).as("the task would not see an uncommitted row").isEmpty();
        assertThat(rt.activeCount()).isZero();
        launcher.commitHeld();
        assertThat(launcher.startedIds()).containsExactly(launcher.inserted.get(0).id());
    }

    @Test
    void a_callers_rolled_back_transaction_starts_nothing_and_frees_the_reserved_slot() {
        ActorRuntime rt = intake(1);
        launcher.holdCommits();
        rt.onEvent(event("order.placed", "o-1", "{\"order\":1}"));

        launcher.rollBackHeld();
        assertThat(launcher.started).isEmpty();

        rt.onEvent(event("order.placed", "o-2", "{\"order\":2}"));
        assertThat(launcher.started).as("the slot the rolled-back episode had reserved is free again").hasSize(1);
    }

    @Test
    void a_database_failure_reaches_the_sender_of_the_event_and_leaves_the_slot_free() {
        ActorRuntime rt = intake(1);
        launcher.failNextInsert(new IllegalStateException("database is down"));

        assertThatThrownBy(() -> rt.onEvent(event("order.placed", "o-1", "{\"order\":1}")))
                .hasMessageContaining("database is down");

        rt.onEvent(event("order.placed", "o-1", "{\"order\":1}"));
        assertThat(launcher.started).as("the retry runs in the slot the failed insert gave back").hasSize(1);
    }

    @Test
    void a_stopped_runtime_refuses_an_event_with_a_503_naming_the_node() {
        ActorRuntime rt = intake(1);
        rt.stopAccepting();

        assertThatThrownBy(() -> rt.onEvent(event("order.placed", "o-1", "{\"order\":1}")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(503))
                .hasMessageContaining("node-1").hasMessageContaining("not stored");
        assertThat(launcher.inserted).isEmpty();
    }
}
