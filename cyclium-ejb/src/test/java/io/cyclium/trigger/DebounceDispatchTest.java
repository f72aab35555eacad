package io.cyclium.trigger;

import static io.cyclium.actor.TestActors.actor;
import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.actor.Overflow;
import io.cyclium.actor.trigger.TestJson;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.episode.DebouncedTriggerStore;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.execution.EpisodeLauncher;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.runtime.Match;
import io.cyclium.runtime.Outcome;
import io.cyclium.store.JoiningTx;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.ManualScheduler;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.Jitter;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Debounced triggers on a real database, with nodes that share nothing but it: the node that took
 * the events is gone when the window closes, and another node's pass fires the subject's last event
 * once. Each test works in an env of its own, so other tests' rows are out of its sight. The
 * window "closes" by moving the row's fire time into the past: the database's clock is not ours
 * to advance.
 */
class DebounceDispatchTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final ActorDefinition MONITOR = actor("monitor", Overflow.QUEUE,
            expectation("load").on("host.load").debounce(Duration.ofSeconds(10), "host"));

    private final String env = "env-" + UUID.randomUUID().toString().substring(0, 8);
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-05T03:00:00Z"));
    private final RecordingTelemetry telemetry = new RecordingTelemetry();

    /** One node: its actor runtime over the shared database, and what it started. */
    private final class Node {
        final String name;
        final Tx tx;
        final DbLauncher launcher;
        final ActorRuntime runtime;
        final DebounceDispatch pass;

        Node(TestJpa db, String name) {
            this(db, name, io.cyclium.telemetry.Tracing.OFF);
        }

        Node(TestJpa db, String name, io.cyclium.telemetry.Tracing tracing) {
            this(db, name, tracing, MONITOR);
        }

        /** A node deploying {@code actor} (the monitor as another release declares it). */
        Node(TestJpa db, String name, io.cyclium.telemetry.Tracing tracing, ActorDefinition actor) {
            this.name = name;
            this.tx = new JoiningTx(db);
            this.launcher = new DbLauncher(tx, db);
            this.runtime = new ActorRuntime(actor, 10, launcher, new ActorRuntime.Context(new ManualScheduler(clock), clock,
                    telemetry, name, "stack-a", env, new Jitter(Duration.ZERO), () -> NodeMode.FULL, tracing));
            this.pass = new DebounceDispatch(name, env, 50, tx, new DebouncedTriggerStore(db.vendor()),
                    () -> java.util.Map.of(actor.id(), runtime), telemetry);
        }

        List<Match> event(String id, String payload) {
            return runtime.admit(new CycliumEvent("host.load", id, TestJson.object(payload)));
        }
    }

    /** The container's launcher cut down to what these tests need: rows in the caller's transaction, starts recorded. */
    private static final class DbLauncher implements EpisodeLauncher {
        final Tx tx;
        final EpisodeStore episodes;
        final DebouncedTriggerStore debounces;
        final List<String> started = Collections.synchronizedList(new ArrayList<>());
        volatile RuntimeException failNextInsert;

        DbLauncher(Tx tx, TestJpa db) {
            this.tx = tx;
            this.episodes = new EpisodeStore(db.vendor());
            this.debounces = new DebouncedTriggerStore(db.vendor());
        }

        @Override
        public boolean insert(NewEpisode episode, Consumer<Boolean> settled) {
            boolean[] won = new boolean[1];
            return tx.inCallerTransaction(em -> {
                RuntimeException failure = failNextInsert;
                if (failure != null) {
                    failNextInsert = null;
                    throw failure;
                }
                won[0] = episodes.insert(em, episode);
                return won[0];
            }, committed -> settled.accept(committed && won[0]));
        }

        @Override
        public void debounce(DebouncedTrigger trigger) {
            tx.inCallerTransaction(em -> {
                debounces.push(em, trigger);
                return null;
            }, committed -> { });
        }

        @Override
        public void start(String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim, Runnable exited) {
            started.add(episodeId);
        }

        @Override
        public void cancelQueued(String episodeId) {
        }

        @Override
        public void releaseClaim(HeldClaim claim, String why) {
        }
    }

    private List<DebouncedTrigger> rows(TestJpa db) {
        return db.inNewTransaction(em -> new DebouncedTriggerStore(db.vendor()).pending(em, env));
    }

    /** The window of every row of this env has closed. */
    private void windowCloses(TestJpa db) {
        db.run(em -> new NativeSql().sql("UPDATE cyclium_debounced_triggers SET fire_at = ")
                .value(LocalDateTime.of(2000, 1, 1, 0, 0)).sql(" WHERE ").is("source_env", env).executeUpdate(em));
    }

    /** The triggers of this env's episodes, as stored. */
    @SuppressWarnings("unchecked")
    private List<TriggerInfo> episodes(TestJpa db) {
        List<Object> refs = db.inNewTransaction(em -> new NativeSql().sql("SELECT trigger_ref FROM cyclium_episodes WHERE ")
                .is("source_env", env).query(em).getResultList());
        return refs.stream().map(r -> TriggerInfo.fromJson(JsonText.parseObject(NativeSql.text(r)))).toList();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_debounced_event_whose_node_stopped_is_fired_once_by_another_node_with_the_last_payload(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        Node taker = new Node(db, "node-a");
        taker.event("e1", "{\"host\":\"db-1\",\"load\":0.7}");
        taker.event("e2", "{\"host\":\"db-1\",\"load\":0.8}");
        List<Match> last = taker.event("e3", "{\"host\":\"db-1\",\"load\":0.9}");
        assertThat(last).singleElement().extracting(Match::outcome).isEqualTo(Outcome.DEBOUNCED);
        taker.runtime.stopAccepting(); // SIGTERM, or gone with kill -9: it holds nothing the database does not
        Node other = new Node(db, "node-b");

        assertThat(other.pass.poll()).as("the window is still open").isZero();
        assertThat(rows(db)).singleElement().satisfies(r -> assertThat(r.version()).isEqualTo(3));
        windowCloses(db);

        assertThat(other.pass.poll()).isEqualTo(1);
        assertThat(episodes(db)).singleElement().satisfies(t -> {
            assertThat(t.eventId()).isEqualTo("e3");
            assertThat(t.payload()).isEqualTo(TestJson.object("{\"host\":\"db-1\",\"load\":0.9}"));
        });
        assertThat(other.launcher.started).as("started on the node that fired it, after its commit").hasSize(1);
        assertThat(rows(db)).isEmpty();
        assertThat(other.pass.poll()).as("fired once").isZero();
        assertThat(episodes(db)).hasSize(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_whose_expectations_no_longer_debounce_reads_the_table_once_in_twelve_passes_and_still_fires_a_row_left_by_the_old_release(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        Node old = new Node(db, "node-a");
        old.event("e1", "{\"host\":\"db-1\",\"load\":0.7}");
        old.runtime.stopAccepting(); // redeployed: the new release's monitor fires at once
        ActorDefinition released = actor("monitor", Overflow.QUEUE, expectation("load").on("host.load"));
        io.cyclium.testing.StatementCountingTx counted = new io.cyclium.testing.StatementCountingTx(db);
        Node node = new Node(db, "node-b", io.cyclium.telemetry.Tracing.OFF, released);
        DebounceDispatch pass = new DebounceDispatch(node.name, env, 50, counted, new DebouncedTriggerStore(db.vendor()),
                () -> java.util.Map.of(released.id(), node.runtime), telemetry);

        assertThat(pass.poll()).as("the first pass reads: the window is still open").isZero();
        int afterFirst = counted.texts().size();
        assertThat(afterFirst).isPositive();
        windowCloses(db);
        for (int i = 1; i < DebounceDispatch.LEFTOVER_EVERY; i++) {
            assertThat(pass.poll()).isZero();
        }
        assertThat(counted.texts()).as("the passes between read nothing").hasSize(afterFirst);

        assertThat(pass.poll()).as("the twelfth pass reads again and fires the old release's row").isEqualTo(1);
        assertThat(episodes(db)).singleElement().satisfies(t -> assertThat(t.eventId()).isEqualTo("e1"));
        assertThat(rows(db)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void due_rows_of_an_actor_no_node_runs_any_more_do_not_hide_the_ones_a_node_fires(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        Node node = new Node(db, "node-a");
        // more rows than a pass reads (50), of an actor since undeployed, and due before ours
        for (int i = 0; i < 60; i++) {
            node.event("gone-" + i, "{\"host\":\"gone-" + i + "\"}");
        }
        db.run(em -> new NativeSql().sql("UPDATE cyclium_debounced_triggers SET actor_id = 'undeployed', fire_at = ")
                .value(LocalDateTime.of(1999, 1, 1, 0, 0)).sql(" WHERE ").is("source_env", env).executeUpdate(em));
        node.event("ours", "{\"host\":\"db-1\"}");
        db.run(em -> new NativeSql().sql("UPDATE cyclium_debounced_triggers SET fire_at = ")
                .value(LocalDateTime.of(2000, 1, 1, 0, 0)).sql(" WHERE actor_id = 'monitor' AND ").is("source_env", env)
                .executeUpdate(em));

        assertThat(node.pass.poll()).isEqualTo(1);
        assertThat(episodes(db)).extracting(TriggerInfo::eventId).containsExactly("ours");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_episode_another_node_fires_runs_under_the_span_of_the_windows_last_event(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        io.cyclium.testing.CollectedSpans spans = new io.cyclium.testing.CollectedSpans();
        Node taker = new Node(db, "node-a", spans.tracing());
        try (io.cyclium.telemetry.TraceSpan first = spans.tracing().enter("POST /cyclium/api/events", null)) {
            taker.event("e1", "{\"host\":\"db-1\"}");
        }
        String last;
        try (io.cyclium.telemetry.TraceSpan second = spans.tracing().enter("POST /cyclium/api/events", null)) {
            taker.event("e2", "{\"host\":\"db-1\"}");
            last = second.traceParent();
        }
        taker.runtime.stopAccepting();
        Node other = new Node(db, "node-b", spans.tracing());
        windowCloses(db);

        assertThat(other.pass.poll()).isEqualTo(1);

        @SuppressWarnings("unchecked")
        List<Object> parents = db.inNewTransaction(em -> (List<Object>) new NativeSql()
                .sql("SELECT trace_parent FROM cyclium_episodes WHERE ").is("source_env", env).query(em).getResultList());
        assertThat(parents).as("the fired episode's parent, stored with its row").containsExactly(last);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void of_two_nodes_passing_over_a_due_row_at_once_exactly_one_fires_it(Vendor vendor) throws InterruptedException {
        TestJpa db = databases.jpa(vendor);
        Node a = new Node(db, "node-a");
        Node b = new Node(db, "node-b");
        for (int i = 0; i < 5; i++) {
            a.event("e" + i, "{\"host\":\"db-" + i + "\"}");
        }
        windowCloses(db);

        List<Integer> fired = Concurrently.run(2, n -> (n == 0 ? a : b).pass.poll());

        assertThat(fired.get(0) + fired.get(1)).isEqualTo(5);
        assertThat(episodes(db)).extracting(TriggerInfo::eventId).containsExactlyInAnyOrder("e0", "e1", "e2", "e3", "e4");
        assertThat(rows(db)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_event_that_replaces_the_row_after_a_pass_read_it_is_not_fired_by_that_stale_read(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        Node a = new Node(db, "node-a");
        a.event("e1", "{\"host\":\"db-1\"}");
        windowCloses(db);
        DebouncedTriggerStore store = new DebouncedTriggerStore(db.vendor());
        DebouncedTrigger read = db.inNewTransaction(em -> store.due(em, env, List.of(MONITOR.id()), 10)).get(0);

        a.event("e2", "{\"host\":\"db-1\"}");

        int taken = db.inNewTransaction(em -> store.take(em, read));
        assertThat(taken).as("a newer event moved the window").isZero();
        assertThat(rows(db)).singleElement().satisfies(r -> {
            assertThat(r.trigger().eventId()).isEqualTo("e2");
            assertThat(r.version()).isEqualTo(2);
        });
        assertThat(a.pass.poll()).as("its new window is open").isZero();
        assertThat(episodes(db)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_fire_whose_episode_cannot_be_stored_leaves_the_row_for_the_next_pass(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        Node a = new Node(db, "node-a");
        a.event("e1", "{\"host\":\"db-1\"}");
        windowCloses(db);
        a.launcher.failNextInsert = new jakarta.persistence.PersistenceException("the database went away");

        assertThat(a.pass.poll()).isZero();
        assertThat(telemetry.count("debounce_fire_failed")).isEqualTo(1);
        assertThat(rows(db)).as("taken and fired in one transaction: rolled back together").hasSize(1);
        assertThat(episodes(db)).isEmpty();

        assertThat(a.pass.poll()).isEqualTo(1);
        assertThat(episodes(db)).extracting(TriggerInfo::eventId).containsExactly("e1");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void nodes_storing_events_of_one_new_subject_at_once_leave_one_row_holding_one_of_them(Vendor vendor)
            throws InterruptedException {
        TestJpa db = databases.jpa(vendor);
        Node a = new Node(db, "node-a");
        Node b = new Node(db, "node-b");

        Concurrently.run(2, n -> (n == 0 ? a : b).event("e" + n, "{\"host\":\"db-1\"}"));

        assertThat(rows(db)).singleElement().satisfies(r -> {
            assertThat(r.version()).isEqualTo(2);
            assertThat(r.trigger().eventId()).isIn("e0", "e1");
        });
    }
}
