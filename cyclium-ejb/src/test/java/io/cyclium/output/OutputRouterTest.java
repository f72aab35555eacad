package io.cyclium.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.output.OutputOutcome.Kind;
import io.cyclium.testing.Concurrently;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestEpisodes;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Outputs against real databases: one delivery per dedupe key however many nodes (threads) try,
 * failures recorded and retryable exactly once, and the database adapter idempotent on its own.
 * Every test uses its own episode and adapter type, so tests share each vendor's database.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class OutputRouterTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    static final JsonObject PAYLOAD = Json.createObjectBuilder().add("host", "web-1").add("cpu", 97).build();

    // ---------------------------------------------------------------- exactly once

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void eight_concurrent_routes_of_one_key_call_the_adapter_once(Vendor vendor) throws Exception {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        RecordingAdapter adapter = f.adapter(d -> "ref-" + d.outputId());

        List<OutputOutcome> outcomes = Concurrently.run(8, i ->
                f.router.route(OutputProposal.of(adapter.type(), "alert", PAYLOAD), episode, null));

        assertThat(adapter.calls()).isEqualTo(1);
        assertThat(outcomes).filteredOn(o -> o.kind() == Kind.DELIVERED).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o.kind() == Kind.DUPLICATE).hasSize(7);
        assertThat(outcomes).extracting(OutputOutcome::outputId).containsOnly(outcomes.get(0).outputId());
        assertThat(f.outputs(episode)).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo("delivered");
            assertThat(row.deliveredRef()).isEqualTo("ref-" + row.id());
            assertThat(row.deliveredAt()).isNotNull();
            assertThat(row.attempts()).isEqualTo(1);
            assertThat(row.payload()).isEqualTo(PAYLOAD);
        });
        assertThat(f.telemetry.count("output_delivered")).isEqualTo(1);
        assertThat(f.telemetry.count("output_deduplicated")).isEqualTo(7);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_restarted_episode_routing_the_same_output_gets_the_earlier_delivery_back(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, "rc");
        RecordingAdapter adapter = f.adapter(d -> "sent");
        OutputOutcome first = f.router.route(OutputProposal.of(adapter.type(), "alert", PAYLOAD), episode, "rc");

        // a new router over the same database: the node restarted and the episode runs again
        Fixture restarted = new Fixture(vendor, f.adapters);
        OutputOutcome again = restarted.router.route(OutputProposal.of(adapter.type(), "alert", PAYLOAD), episode, "rc");

        assertThat(again.kind()).isEqualTo(Kind.DUPLICATE);
        assertThat(again.outputId()).isEqualTo(first.outputId());
        assertThat(again.dedupeKey()).isEqualTo(first.dedupeKey());
        assertThat(again.status()).isEqualTo("delivered");
        assertThat(again.ref()).isEqualTo("sent");
        assertThat(adapter.calls()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_proposed_output_left_by_a_run_that_died_is_delivered_again_under_its_key_when_the_episode_resumes(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        RecordingAdapter adapter = f.adapter(d -> "ref-" + d.attempt());
        OutputProposal proposal = OutputProposal.of(adapter.type(), "alert", PAYLOAD);
        String key = OutputKeys.effective(proposal, episode, null);
        // the first run stored the row and died before the adapter answered was recorded
        boolean stored = f.jpa.inNewTransaction(em -> new OutputStore(f.jpa.vendor())
                .insertProposed(em, UUID.randomUUID().toString(), episode.id(), adapter.type(), key, PAYLOAD));
        assertThat(stored).isTrue();

        OutputOutcome fresh = f.router.route(proposal, episode, null);
        assertThat(fresh.kind()).as("a run that is not a resume never takes another's delivery over").isEqualTo(Kind.DUPLICATE);
        assertThat(adapter.calls()).isZero();

        // runs of one episode follow each other (its lease sees to that): the next one finishes the delivery
        OutputOutcome resumed = f.router.routeResumed(proposal, episode, null);

        assertThat(adapter.calls()).as("delivered again, once").isEqualTo(1);
        assertThat(resumed.kind()).isEqualTo(Kind.DELIVERED);
        assertThat(resumed.dedupeKey()).isEqualTo(key);
        assertThat(f.outputs(episode)).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo("delivered");
            assertThat(row.attempts()).isEqualTo(2);
            assertThat(row.deliveredRef()).isEqualTo("ref-2");
        });
        OutputOutcome afterwards = f.router.routeResumed(proposal, episode, null);
        assertThat(afterwards.kind()).as("delivered now: a later resume gets the delivery back").isEqualTo(Kind.DUPLICATE);
        assertThat(adapter.calls()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void of_eight_takers_holding_the_same_read_of_a_left_over_output_exactly_one_redelivers_it(Vendor vendor)
            throws Exception {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        OutputStore store = new OutputStore(f.jpa.vendor());
        String id = UUID.randomUUID().toString();
        boolean stored = f.jpa.inNewTransaction(em -> store.insertProposed(em, id, episode.id(), "count", "k:" + id, PAYLOAD));
        assertThat(stored).isTrue();

        List<Integer> won = Concurrently.run(8, i -> f.jpa.inNewTransaction(em -> store.claimRedelivery(em, id, 1)));

        assertThat(won).containsOnly(0, 1).filteredOn(n -> n == 1).hasSize(1);
        assertThat(f.outputs(episode)).singleElement().satisfies(row -> assertThat(row.attempts()).isEqualTo(2));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_resumed_run_never_takes_over_a_proposed_output_of_another_episode(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        RecordingAdapter adapter = f.adapter(d -> "sent");
        String explicit = "hourly:" + UUID.randomUUID();
        OutputProposal proposal = OutputProposal.withDedupeKey(adapter.type(), explicit, PAYLOAD);
        EpisodeRef first = TestEpisodes.running(f.jpa, null);
        boolean stored = f.jpa.inNewTransaction(em -> new OutputStore(f.jpa.vendor())
                .insertProposed(em, UUID.randomUUID().toString(), first.id(), adapter.type(), explicit, PAYLOAD));
        assertThat(stored).isTrue();

        OutputOutcome other = f.router.routeResumed(proposal, TestEpisodes.running(f.jpa, null), null);

        assertThat(other.kind()).isEqualTo(Kind.DUPLICATE);
        assertThat(adapter.calls()).isZero();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_explicit_key_is_delivered_once_per_env(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        RecordingAdapter adapter = f.adapter(d -> "sent");
        String explicit = "alert:" + UUID.randomUUID();
        OutputProposal proposal = OutputProposal.withDedupeKey(adapter.type(), explicit, PAYLOAD);

        OutputOutcome prod = f.router.route(proposal, TestEpisodes.running(f.jpa, "prod"), "prod");
        OutputOutcome rc = f.router.route(proposal, TestEpisodes.running(f.jpa, "rc"), "rc");
        OutputOutcome unset = f.router.route(proposal, TestEpisodes.running(f.jpa, null), null);
        OutputOutcome rcAgain = f.router.route(proposal, TestEpisodes.running(f.jpa, "rc"), "rc");

        assertThat(List.of(prod, rc, unset)).extracting(OutputOutcome::kind).containsOnly(Kind.DELIVERED);
        assertThat(List.of(prod, rc, unset)).extracting(OutputOutcome::dedupeKey)
                .containsExactly(explicit + ":prod", explicit + ":rc", explicit);
        assertThat(rcAgain.kind()).as("an explicit key spans episodes").isEqualTo(Kind.DUPLICATE);
        assertThat(adapter.calls()).isEqualTo(3);
    }

    // ---------------------------------------------------------------- failures and retries

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_failing_adapter_leaves_a_failed_row_with_its_error(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        RecordingAdapter adapter = f.adapter(d -> {
            throw new IOException("mail server refused the connection");
        });

        OutputOutcome outcome = f.router.route(OutputProposal.of(adapter.type(), "mail", PAYLOAD), episode, null);

        assertThat(outcome.kind()).isEqualTo(Kind.FAILED);
        assertThat(outcome.status()).isEqualTo("failed");
        assertThat(outcome.error()).contains("IOException").contains("mail server refused the connection");
        assertThat(f.outputs(episode)).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo("failed");
            assertThat(row.errorClass()).isEqualTo(OutputRouter.ADAPTER_ERROR);
            assertThat(row.errorDetail()).contains("mail server refused the connection");
            assertThat(row.deliveredAt()).isNull();
        });
        assertThat(f.telemetry.count("output_failed")).isEqualTo(1);
        OutputOutcome again = f.router.route(OutputProposal.of(adapter.type(), "mail", PAYLOAD), episode, null);
        assertThat(again.kind()).as("a failed key still blocks automatic redelivery").isEqualTo(Kind.DUPLICATE);
        assertThat(again.status()).isEqualTo("failed");
        assertThat(adapter.calls()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void retrying_a_failed_output_delivers_it_and_counts_the_attempt(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        RecordingAdapter adapter = f.adapter(failingOnceThen(d -> "sent-on-attempt-" + d.attempt()));
        OutputOutcome failed = f.router.route(OutputProposal.of(adapter.type(), "mail", PAYLOAD), episode, null);

        OutputOutcome retried = f.router.retry(failed.outputId());

        assertThat(retried.kind()).isEqualTo(Kind.DELIVERED);
        assertThat(retried.outputId()).isEqualTo(failed.outputId());
        assertThat(retried.dedupeKey()).isEqualTo(failed.dedupeKey());
        assertThat(retried.ref()).isEqualTo("sent-on-attempt-2");
        assertThat(f.telemetry.count("output_retried")).isEqualTo(1);
        assertThat(f.telemetry.count("output_delivered")).as("the retry's delivery").isEqualTo(1);
        assertThat(adapter.deliveries()).extracting(OutputAdapter.Delivery::attempt).containsExactly(1, 2);
        assertThat(adapter.deliveries()).extracting(OutputAdapter.Delivery::payload).containsOnly(PAYLOAD);
        assertThat(f.output(failed.outputId())).satisfies(row -> {
            assertThat(row.status()).isEqualTo("delivered");
            assertThat(row.attempts()).isEqualTo(2);
            assertThat(row.errorClass()).isNull();
            assertThat(row.errorDetail()).isNull();
            assertThat(row.deliveredAt()).isNotNull();
        });
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void retrying_a_delivered_output_is_refused_and_delivers_nothing(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        RecordingAdapter adapter = f.adapter(d -> "sent");
        OutputOutcome delivered = f.router.route(OutputProposal.of(adapter.type(), "mail", PAYLOAD),
                TestEpisodes.running(f.jpa, null), null);

        assertThatThrownBy(() -> f.router.retry(delivered.outputId()))
                .isInstanceOfSatisfying(OutputRetryRefusedException.class, e -> {
                    assertThat(e.status()).isEqualTo("delivered");
                    assertThat(e.outputId()).isEqualTo(delivered.outputId());
                })
                .hasMessageContaining("is delivered, not failed");
        assertThatThrownBy(() -> f.router.retry(UUID.randomUUID().toString()))
                .isInstanceOf(UnknownOutputException.class);
        assertThat(adapter.calls()).isEqualTo(1);
        assertThat(f.telemetry.count("output_retried")).as("a refused retry is not one").isZero();
        assertThat(f.output(delivered.outputId()).attempts()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_proposed_output_left_behind_is_retried_by_an_operator_only_once_its_episode_has_ended(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        RecordingAdapter adapter = f.adapter(d -> "sent-late");
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        // a run stored the row and died before the adapter's answer was recorded
        String id = UUID.randomUUID().toString();
        f.jpa.run(em -> f.store.insertProposed(em, id, episode.id(), adapter.type(), "left-behind:" + id, PAYLOAD));

        assertThatThrownBy(() -> f.router.retry(id))
                .as("while its episode runs, the episode delivers it when it resumes")
                .isInstanceOfSatisfying(OutputRetryRefusedException.class, e -> assertThat(e.status()).isEqualTo("proposed"))
                .hasMessageContaining("still running");
        assertThat(adapter.calls()).isZero();

        f.jpa.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET status = 'failed' WHERE id = ?1")
                .setParameter(1, episode.id()).executeUpdate());
        OutputOutcome retried = f.router.retry(id);

        assertThat(retried.kind()).isEqualTo(Kind.DELIVERED);
        assertThat(adapter.deliveries()).extracting(OutputAdapter.Delivery::dedupeKey).containsExactly("left-behind:" + id);
        assertThat(adapter.deliveries()).extracting(OutputAdapter.Delivery::attempt).containsExactly(2);
        assertThat(f.output(id).status()).isEqualTo("delivered");
        assertThatThrownBy(() -> f.router.retry(id)).as("delivered now: done").isInstanceOf(OutputRetryRefusedException.class);
        assertThat(adapter.calls()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_concurrent_retries_of_one_failed_output_call_the_adapter_once(Vendor vendor) throws Exception {
        Fixture f = new Fixture(vendor);
        RecordingAdapter adapter = f.adapter(failingOnceThen(d -> "sent"));
        OutputOutcome failed = f.router.route(OutputProposal.of(adapter.type(), "mail", PAYLOAD),
                TestEpisodes.running(f.jpa, null), null);

        List<Object> results = Concurrently.run(2, i -> {
            try {
                return f.router.retry(failed.outputId());
            } catch (OutputRetryRefusedException refused) {
                return refused;
            }
        });

        assertThat(adapter.calls()).as("the failed first delivery and one retry").isEqualTo(2);
        assertThat(results).filteredOn(r -> r instanceof OutputOutcome o && o.kind() == Kind.DELIVERED).hasSize(1);
        assertThat(results).filteredOn(OutputRetryRefusedException.class::isInstance).hasSize(1);
        assertThat(f.output(failed.outputId()).attempts()).isEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_output_type_without_an_adapter_fails_with_no_adapter(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);

        OutputOutcome outcome = f.router.route(OutputProposal.of("carrier-pigeon", "note", PAYLOAD), episode, null);

        assertThat(outcome.kind()).isEqualTo(Kind.FAILED);
        assertThat(outcome.error()).contains("carrier-pigeon");
        assertThat(f.output(outcome.outputId()).errorClass()).isEqualTo(OutputRouter.NO_ADAPTER);
    }

    // ---------------------------------------------------------------- the database adapter

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_database_adapter_writes_one_record_per_dedupe_key_however_often_it_is_called(Vendor vendor) {
        Fixture f = new Fixture(vendor);
        OutputRecordStore records = new OutputRecordStore(f.jpa.vendor());
        f.adapters.put("database-" + vendor, new OutputAdapter() {
            @Override
            public String type() {
                return "database-" + vendor;
            }

            @Override
            public String deliver(Delivery d) {
                return f.jpa.inNewTransaction(em -> records.store(em, d));
            }
        });
        EpisodeRef episode = TestEpisodes.running(f.jpa, null);
        OutputOutcome outcome = f.router.route(OutputProposal.of("database-" + vendor, "row", PAYLOAD), episode, null);
        OutputAdapter.Delivery again = new OutputAdapter.Delivery(outcome.outputId(), episode.id(),
                "database-" + vendor, outcome.dedupeKey(), PAYLOAD, 2);

        String second = f.jpa.inNewTransaction(em -> records.store(em, again));

        assertThat(outcome.kind()).isEqualTo(Kind.DELIVERED);
        assertThat(second).as("the existing record's id").isEqualTo(outcome.ref());
        Object[] row = f.jpa.inNewTransaction(em -> (Object[]) em.createNativeQuery(
                        "SELECT COUNT(*), MIN(episode_id), MIN(output_type) FROM cyclium_output_records"
                                + " WHERE dedupe_key = ?1").setParameter(1, outcome.dedupeKey()).getSingleResult());
        assertThat(((Number) row[0]).intValue()).isEqualTo(1);
        assertThat(row[1]).isEqualTo(episode.id());
        assertThat(row[2]).isEqualTo("database-" + vendor);
    }

    // ---------------------------------------------------------------- adapter index

    @Test
    void two_adapters_for_one_type_are_refused_with_both_named() {
        OutputAdapter a = new RecordingAdapter("log", d -> "a");
        OutputAdapter b = new RecordingAdapter("log", d -> "b");
        OutputAdapter c = new RecordingAdapter("database", d -> "c");

        assertThat(OutputRouter.byType(List.of(a, c), x -> "x")).containsOnlyKeys("log", "database");
        assertThatThrownBy(() -> OutputRouter.byType(List.of(a, c, b), x -> x == a ? "com.acme.MailLog" : "com.acme.Other"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("output type \"log\" has two adapters, com.acme.MailLog and com.acme.Other");
    }

    // ---------------------------------------------------------------- fixture

    interface Behaviour {
        String deliver(OutputAdapter.Delivery d) throws Exception;
    }

    /** Throws an IOException on the first delivery, then behaves like {@code then}. */
    static Behaviour failingOnceThen(Behaviour then) {
        AtomicInteger failuresLeft = new AtomicInteger(1);
        return d -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IOException("timeout");
            }
            return then.deliver(d);
        };
    }

    static final class RecordingAdapter implements OutputAdapter {
        private final String type;
        private final Behaviour behaviour;
        private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

        RecordingAdapter(String type, Behaviour behaviour) {
            this.type = type;
            this.behaviour = behaviour;
        }

        @Override
        public String type() {
            return type;
        }

        @Override
        public String deliver(Delivery d) throws Exception {
            deliveries.add(d);
            return behaviour.deliver(d);
        }

        int calls() {
            return deliveries.size();
        }

        List<Delivery> deliveries() {
            return deliveries;
        }
    }

    private static final class Fixture {
        final TestJpa jpa;
        final Map<String, OutputAdapter> adapters;
        final RecordingTelemetry telemetry = new RecordingTelemetry();
        final OutputStore store;
        final OutputRouter router;

        Fixture(Vendor vendor) {
            this(vendor, new ConcurrentHashMap<>());
        }

        Fixture(Vendor vendor, Map<String, OutputAdapter> adapters) {
            this.jpa = databases.jpa(vendor);
            this.adapters = adapters;
            this.store = new OutputStore(jpa.vendor());
            this.router = new OutputRouter(jpa, store, type -> Optional.ofNullable(adapters.get(type)),
                    Clock.systemUTC(), telemetry);
        }

        /** An adapter of a type no other test uses. */
        RecordingAdapter adapter(Behaviour behaviour) {
            RecordingAdapter adapter = new RecordingAdapter("test-" + UUID.randomUUID(), behaviour);
            adapters.put(adapter.type(), adapter);
            return adapter;
        }

        List<OutputView> outputs(EpisodeRef episode) {
            return jpa.inNewTransaction(em -> new OutputQueries().forEpisode(em, episode.id()));
        }

        OutputView output(String id) {
            return jpa.inNewTransaction(em -> store.find(em, id)).orElseThrow();
        }
    }
}
