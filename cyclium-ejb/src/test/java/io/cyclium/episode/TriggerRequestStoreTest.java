package io.cyclium.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The guards on a deferred trigger's way through the pollers, on every database. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class TriggerRequestStoreTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    /** A deferred episode and its pending request, in an env of its own; returns the request id. */
    private static String pendingRequest(TestJpa db, String env) {
        String episode = UUID.randomUUID().toString();
        String request = UUID.randomUUID().toString();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("id", episode);
        c.put("actor_id", "reports");
        c.put("expectation_id", "digest");
        c.put("trigger_type", "manual");
        c.put("trigger_ref", "{}");
        c.put("dedupe_key", "test:" + episode);
        c.put("status", "running");
        c.put("mode", "live");
        c.put("attempts", 1);
        c.put("max_attempts", 3);
        c.put("turns_used", 0);
        c.put("cancel_requested", Boolean.FALSE);
        c.put("source_env", env);
        c.put("started_at", NativeSql.raw(db.vendor().utcNow()));
        c.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        TriggerRequestStore store = new TriggerRequestStore(db.vendor());
        db.run(em -> {
            new NativeSql().insert("cyclium_episodes", c).executeUpdate(em);
            store.insert(em, request, episode, "reports", "digest", "node-t", null, env, false);
        });
        return request;
    }

    /** Rows an update changed (a plain int, so assertions read as numbers). */
    private static int rows(TestJpa db, java.util.function.Function<jakarta.persistence.EntityManager, Integer> update) {
        return db.inNewTransaction(update);
    }

    private static List<String> pendingIds(TestJpa db, String env) {
        TriggerRequestStore store = new TriggerRequestStore(db.vendor());
        return db.inNewTransaction(em -> store.pending(em, env, null, 50)).stream().map(TriggerRequestStore.Request::id).toList();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_request_is_claimed_by_one_node_only_and_completed_only_by_that_node(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        String env = "env-" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingRequest(db, env);
        TriggerRequestStore store = new TriggerRequestStore(db.vendor());

        assertThat(rows(db, em -> store.claim(em, id, "node-f"))).isEqualTo(1);
        assertThat(rows(db, em -> store.claim(em, id, "node-g"))).as("already claimed").isZero();
        assertThat(rows(db, em -> store.complete(em, id, "node-g"))).as("not node-g's").isZero();
        assertThat(rows(db, em -> store.complete(em, id, "node-f"))).isEqualTo(1);
        assertThat(pendingIds(db, env)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_request_whose_hand_off_failed_is_given_back_by_its_claimer_and_can_be_claimed_again(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        String env = "env-" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingRequest(db, env);
        TriggerRequestStore store = new TriggerRequestStore(db.vendor());
        db.inNewTransaction(em -> store.claim(em, id, "node-f"));
        assertThat(pendingIds(db, env)).isEmpty();

        assertThat(rows(db, em -> store.release(em, id, "node-g"))).as("only the claimer gives it back").isZero();
        assertThat(rows(db, em -> store.release(em, id, "node-f"))).isEqualTo(1);

        assertThat(pendingIds(db, env)).containsExactly(id);
        assertThat(rows(db, em -> store.claim(em, id, "node-g"))).isEqualTo(1);
        assertThat(rows(db, em -> store.release(em, id, "node-f"))).as("node-g holds it now").isZero();
        assertThat(rows(db, em -> store.complete(em, id, "node-g"))).isEqualTo(1);
        assertThat(rows(db, em -> store.release(em, id, "node-g"))).as("a completed request stays completed").isZero();
    }
}
