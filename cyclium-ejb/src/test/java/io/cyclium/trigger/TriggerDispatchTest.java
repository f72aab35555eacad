package io.cyclium.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
import java.util.function.Function;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestConfig;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestEpisodes;
import io.cyclium.testing.TestJpa;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One trigger poll of a full node on a real database. Each test polls an env of
 * its own, so other tests' requests are out of its sight.
 */
class TriggerDispatchTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final TestJpa db = databases.jpa(Vendor.H2);
    private final String env = "env-" + UUID.randomUUID().toString().substring(0, 8);
    private final TriggerRequestStore store = new TriggerRequestStore(db.vendor());
    private final RecordingTelemetry telemetry = new RecordingTelemetry();
    private final Actors actors = new Actors();

    /** The actors this node runs in full mode, and what was handed to them. */
    private static final class Actors implements DispatchTarget {
        final Set<String> here = new HashSet<>();
        final List<String> dispatched = new ArrayList<>();
        RuntimeException failNext;

        @Override
        public boolean runsHere(String actorId) {
            return here.contains(actorId);
        }

        @Override
        public boolean dispatch(String actorId, String episodeId, boolean resume) {
            if (failNext != null) {
                RuntimeException e = failNext;
                failNext = null;
                throw e;
            }
            dispatched.add(episodeId);
            return true;
        }
    }

    private TriggerDispatch poller(String node) {
        return poller(node, db);
    }

    private TriggerDispatch poller(String node, Tx tx) {
        return new TriggerDispatch(TestConfig.of("cyclium.env", env, "cyclium.trigger-poll.expire-after-ms", "3600000"), node,
                tx, store, actors, telemetry);
    }

    /** A deferred episode of {@code monitor} and its pending request; returns {episode id, request id}. */
    private String[] pendingRequest() {
        String episode = TestEpisodes.running(db, env).id();
        String request = UUID.randomUUID().toString();
        db.run(em -> store.insert(em, request, episode, "monitor", "check", "node-t", null, env, false));
        return new String[] {episode, request};
    }

    private TriggerRequestStore.Request request(String id) {
        return db.inNewTransaction(em -> store.recent(em, null, 500)).stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow();
    }

    @Test
    void a_pending_request_is_dispatched_once_and_completed_by_the_node_that_claimed_it() {
        actors.here.add("monitor");
        String[] r = pendingRequest();

        assertThat(poller("node-f").poll()).isEqualTo(1);
        assertThat(poller("node-g").poll()).as("another full node finds nothing left").isZero();
        assertThat(poller("node-f").poll()).isZero();

        assertThat(actors.dispatched).containsExactly(r[0]);
        assertThat(request(r[1])).extracting(TriggerRequestStore.Request::status, TriggerRequestStore.Request::claimedBy)
                .containsExactly("completed", "node-f");        assertThat(telemetry.count("trigger_request_dispatched")).as("counted once, by the node that ran it").isEqualTo(1);
    }

    @Test
    void a_request_whose_hand_over_fails_is_given_back_and_the_next_poll_dispatches_it() {
        actors.here.add("monitor");
        String[] r = pendingRequest();
        actors.failNext = new IllegalStateException("executor rejected the task");

        assertThatThrownBy(() -> poller("node-f").poll()).hasMessageContaining("executor rejected");

        assertThat(request(r[1])).extracting(TriggerRequestStore.Request::status, TriggerRequestStore.Request::claimedBy)
                .containsExactly("pending", null);

        assertThat(poller("node-f").poll()).isEqualTo(1);
        assertThat(actors.dispatched).containsExactly(r[0]);
        assertThat(request(r[1]).status()).isEqualTo("completed");
    }

    @Test
    void a_request_for_an_actor_that_does_not_run_here_is_left_pending() {
        String[] r = pendingRequest();

        assertThat(poller("node-f").poll()).isZero();

        assertThat(request(r[1]).status()).isEqualTo("pending");
        assertThat(actors.dispatched).isEmpty();
    }

    @Test
    void a_poller_that_read_a_request_pending_before_another_node_dispatched_and_completed_it_dispatches_nothing() {
        actors.here.add("monitor");
        String[] r = pendingRequest();
        // node-f reads the pending batch; before its next statement node-g runs a whole poll
        Tx readThenNodeGPolls = new Tx() {
            private boolean read;

            @Override
            public <T> T inNewTransaction(Function<EntityManager, T> work) {
                T result = db.inNewTransaction(work);
                if (!read) {
                    read = true;
                    assertThat(poller("node-g").poll()).isEqualTo(1);
                }
                return result;
            }
        };

        // the guarded pending → claimed update stops node-f: nothing else stands in its way
        assertThat(poller("node-f", readThenNodeGPolls).poll()).isZero();

        assertThat(actors.dispatched).as("handed over once, by node-g").containsExactly(r[0]);
        assertThat(request(r[1])).extracting(TriggerRequestStore.Request::status, TriggerRequestStore.Request::claimedBy)
                .containsExactly("completed", "node-g");
    }

    @Test
    void a_poll_with_nothing_pending_is_one_read_and_no_expiry_update() {
        List<String> transactions = new ArrayList<>();
        Tx counting = new Tx() {
            @Override
            public <T> T inNewTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                transactions.add("tx");
                return db.inNewTransaction(work);
            }
        };

        assertThat(poller("node-f", counting).poll()).isZero();
        assertThat(transactions).as("the idle poll's read only").hasSize(1);
    }

    @Test
    void requests_pending_longer_than_the_window_expire_and_younger_ones_stay() {
        String[] old = pendingRequest();
        String[] young = pendingRequest();
        db.run(em -> new NativeSql().sql("UPDATE cyclium_trigger_requests SET inserted_at = "
                + db.vendor().utcNowPlusSeconds("-7200") + " WHERE id = ").value(old[1]).executeUpdate(em));

        poller("node-f").poll();

        assertThat(request(old[1]).status()).isEqualTo("expired");
        assertThat(request(young[1]).status()).isEqualTo("pending");
        assertThat(telemetry.count("trigger_request_expired")).isEqualTo(1);
    }

    @Test
    void the_pending_gauge_reads_what_is_left_after_each_poll_counting_past_a_full_page() {
        for (int i = 0; i < 5; i++) {
            pendingRequest();
        }
        TriggerDispatch pagesOfTwo = new TriggerDispatch(TestConfig.of("cyclium.env", env, "cyclium.trigger-poll.expire-after-ms",
                "3600000", "cyclium.trigger-poll.batch-size", "2"), "node-f", db, store, actors, telemetry);

        pagesOfTwo.poll();
        assertThat(telemetry.gauge("trigger_requests_pending")).as("nothing runs here: all five wait").isEqualTo(5);

        actors.here.add("monitor");
        assertThat(pagesOfTwo.poll()).isEqualTo(2);
        assertThat(telemetry.gauge("trigger_requests_pending")).as("a full page: counted").isEqualTo(3);
        pagesOfTwo.poll();
        pagesOfTwo.poll();
        assertThat(telemetry.gauge("trigger_requests_pending")).as("a short page: what it left").isZero();
    }
}
