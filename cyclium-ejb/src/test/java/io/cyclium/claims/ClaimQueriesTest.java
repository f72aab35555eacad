package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.claims.ClaimQueries.ClaimPage;
import io.cyclium.claims.ClaimQueries.ClaimRow;
import io.cyclium.claims.ClaimQueries.Filter;
import io.cyclium.claims.ClaimQueries.HeldByNode;
import io.cyclium.problem.Problem;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The claims table as the console and API read it, on real databases, with claims made by the
 * real {@link JpaWorkClaims}. Each test uses keys and owners of its own.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ClaimQueriesTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static String unique(String what) {
        return what + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static List<ClaimRow> walk(TestJpa db, Filter filter, int size) {
        ClaimQueries queries = new ClaimQueries(db.vendor());
        List<ClaimRow> all = new ArrayList<>();
        String cursor = null;
        do {
            String after = cursor;
            ClaimPage page = db.inNewTransaction(em -> queries.page(em, filter, after, size));
            assertThat(page.claims()).hasSizeLessThanOrEqualTo(size);
            all.addAll(page.claims());
            cursor = page.nextCursor();
        } while (cursor != null);
        return all;
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void claims_page_in_key_order_and_filter_by_owner_work_type_state_and_literal_key_prefix(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), Telemetry.NOOP);
        String prefix = unique("episode:p_1%");
        String owner = unique("node");
        for (int i = 0; i < 7; i++) {
            claims.acquire(prefix + ":" + i, owner, 60, "episode");
        }
        claims.complete(prefix + ":3", owner);
        claims.acquire(prefix + ":req", owner, 60, "trigger_request");
        // would match if _ and % in the prefix were wildcards
        claims.acquire(prefix.replace("p_1%", "pX1Y") + ":0", owner, 60, "episode");

        List<ClaimRow> all = walk(db, new Filter(null, null, null, prefix), 3);
        assertThat(all).extracting(ClaimRow::key).containsExactly(prefix + ":0", prefix + ":1", prefix + ":2",
                prefix + ":3", prefix + ":4", prefix + ":5", prefix + ":6", prefix + ":req");
        assertThat(walk(db, new Filter(owner, "trigger_request", null, null), 2)).extracting(ClaimRow::key)
                .containsExactly(prefix + ":req");
        assertThat(walk(db, new Filter(owner, null, "done", null), 2)).extracting(ClaimRow::key)
                .containsExactly(prefix + ":3");
        assertThat(walk(db, new Filter(owner, null, null, null), 2)).hasSize(9);

        ClaimRow live = all.get(0);
        assertThat(live.state()).isEqualTo("claimed");
        assertThat(live.owner()).isEqualTo(owner);
        assertThat(live.fence()).isEqualTo(1);
        assertThat(live.attempt()).isEqualTo(1);
        assertThat(live.secondsLeft()).isBetween(50L, 60L);
        ClaimRow done = all.get(3);
        assertThat(done.secondsLeft()).isNull();
        assertThat(done.finishedAt()).isNotNull();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void held_claims_are_counted_per_owner_live_and_lapsed_on_the_database_clock(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), Telemetry.NOOP);
        String a = unique("node-a");
        String b = unique("node-b");
        claims.acquire(unique("k"), a, 60, "episode");
        String lapsing = unique("k");
        claims.acquire(lapsing, a, 60, "episode");
        LeaseLapse.lapse(db, db.vendor(), lapsing);
        String settled = unique("k");
        claims.acquire(settled, b, 60, "episode");
        claims.complete(settled, b);

        List<HeldByNode> held = db.inNewTransaction(em -> new ClaimQueries(db.vendor()).heldByNode(em));

        assertThat(held).contains(new HeldByNode(a, 1, 1));
        assertThat(held).extracting(HeldByNode::owner).doesNotContain(b);
    }

    @Test
    void bad_states_and_cursors_are_400s_naming_the_parameter_and_a_huge_page_is_capped() {
        assertThatThrownBy(() -> new Filter(null, null, "stolen", null))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("state"));
        assertThatThrownBy(() -> ClaimQueries.decode("***"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("cursor"));
        assertThat(ClaimQueries.decode(ClaimQueries.encode("episode:ü:1"))).isEqualTo("episode:ü:1");
        assertThat(ClaimQueries.likePrefix("a_b%c!")).isEqualTo("a!_b!%c!!%");

        TestJpa db = databases.jpa(Vendor.H2);
        JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), Telemetry.NOOP);
        String prefix = unique("cap");
        for (int i = 0; i < ClaimQueries.MAX_PAGE + 5; i++) {
            claims.acquire(prefix + ":" + String.format("%04d", i), "n", 60, "episode");
        }
        ClaimPage page = db.inNewTransaction(em -> new ClaimQueries(db.vendor()).page(em, new Filter(null, null, null, prefix),
                null, 100_000));
        assertThat(page.claims()).hasSize(200);
        assertThat(page.nextCursor()).isNotNull();
    }

    @Test
    void the_outcome_tally_counts_this_nodes_steals_and_busy_answers_and_passes_everything_on() {
        TestJpa db = databases.jpa(Vendor.H2);
        RecordingTelemetryWithTags downstream = new RecordingTelemetryWithTags();
        ClaimOutcomeTally tally = new ClaimOutcomeTally(downstream, Instant.EPOCH);
        JpaWorkClaims claims = new JpaWorkClaims(db, db.vendor(), tally);
        String key = unique("stolen");

        claims.acquire(key, "node-a", 60, "episode");
        claims.acquire(key, "node-b", 60, "episode");
        LeaseLapse.lapse(db, db.vendor(), key);
        claims.acquire(key, "node-b", 60, "episode");
        tally.count("some_other_metric", "outcome", "steal");

        assertThat(tally.count("acquired")).isEqualTo(1);
        assertThat(tally.count("busy")).isEqualTo(1);
        assertThat(tally.count("steal")).isEqualTo(1);
        assertThat(tally.counts()).containsOnlyKeys("acquired", "busy", "steal");
        assertThat(tally.since()).isEqualTo(Instant.EPOCH);
        assertThat(downstream.outcomes).containsExactly("work_claims:acquired", "work_claims:busy", "work_claims:steal",
                "some_other_metric:steal");
    }

    private static final class RecordingTelemetryWithTags implements Telemetry {
        final List<String> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void count(String name, String... tags) {
            outcomes.add(name + ":" + tags[1]);
        }

        @Override
        public void time(String name, java.time.Duration duration, String... tags) {
        }
    }
}
