package io.cyclium.operations;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.problem.Problem;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The keyset-paged episode list on H2, PostgreSQL and MariaDB. Every test inserts rows under an actor of its
 * own and filters by it, so tests share each vendor's database without seeing each other's rows.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EpisodeListingTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final LocalDateTime T0 = LocalDateTime.of(2026, 11, 30, 6, 0, 0, 123_456_000);

    private static String actor() {
        return "a-" + UUID.randomUUID();
    }

    private static EpisodeFilter byActor(String actor) {
        return new EpisodeFilter(actor, null, null, null, null, null, null);
    }

    /** Walks every page, following nextCursor, and returns the rows in the order served. */
    private static List<EpisodeView> walk(TestJpa db, EpisodeFilter filter, int size) {
        EpisodeListing listing = new EpisodeListing(db.vendor());
        List<EpisodeView> all = new ArrayList<>();
        EpisodeCursor cursor = null;
        for (int pages = 0; pages < 1_000; pages++) {
            EpisodeCursor after = cursor;
            EpisodePage page = db.inNewTransaction(em -> listing.page(em, filter, after, size));
            assertThat(page.episodes()).hasSizeLessThanOrEqualTo(size);
            all.addAll(page.episodes());
            if (page.nextCursor() == null) {
                return all;
            }
            cursor = EpisodeCursor.decode(page.nextCursor());
        }
        throw new AssertionError("more than 1,000 pages: the cursor does not advance");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void paging_returns_every_row_exactly_once_newest_first_when_many_rows_share_a_start_time(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        String actor = actor();
        EpisodeRows rows = new EpisodeRows(db).actor(actor, "check");
        Set<String> inserted = new HashSet<>();
        // 137 rows on 5 timestamps: every page boundary falls inside a run of equal started_at
        for (int i = 0; i < 137; i++) {
            inserted.add(rows.insert(T0.plusSeconds(i % 5)));
        }

        List<EpisodeView> served = walk(db, byActor(actor), 20);

        assertThat(served).hasSize(137);
        assertThat(served.stream().map(EpisodeView::id).distinct()).hasSize(137);
        assertThat(served.stream().map(EpisodeView::id).toList()).containsExactlyInAnyOrderElementsOf(inserted);
        assertThat(served).isSortedAccordingTo(Comparator.comparing(EpisodeView::startedAt)
                .thenComparing(EpisodeView::id).reversed());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_page_is_capped_at_200_rows_whatever_size_is_asked_for(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        String actor = actor();
        EpisodeRows rows = new EpisodeRows(db).actor(actor, "check");
        for (int i = 0; i < 230; i++) {
            rows.insert(T0.plusSeconds(i));
        }
        EpisodeListing listing = new EpisodeListing(db.vendor());

        EpisodePage huge = db.inNewTransaction(em -> listing.page(em, byActor(actor), null, 1_000_000));
        EpisodePage zero = db.inNewTransaction(em -> listing.page(em, byActor(actor), null, 0));

        assertThat(huge.episodes()).hasSize(EpisodeListing.MAX_PAGE).hasSize(200);
        assertThat(huge.nextCursor()).isNotNull();
        assertThat(zero.episodes()).hasSize(1);
        assertThat(walk(db, byActor(actor), Integer.MAX_VALUE)).hasSize(230);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void each_filter_keeps_only_its_rows_and_a_dash_means_no_stack_or_env(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        String actor = actor();
        String plain = new EpisodeRows(db).actor(actor, "check").insert(T0);
        String other = new EpisodeRows(db).actor(actor, "advise").insert(T0.plusMinutes(1));
        String failed = new EpisodeRows(db).actor(actor, "check").status("failed").insert(T0.plusMinutes(2));
        String staged = new EpisodeRows(db).actor(actor, "check").scope("blue", "staging").insert(T0.plusMinutes(3));
        String late = new EpisodeRows(db).actor(actor, "check").insert(T0.plusHours(5));

        assertThat(ids(db, new EpisodeFilter(actor, "advise", null, null, null, null, null))).containsExactly(other);
        assertThat(ids(db, new EpisodeFilter(actor, null, "failed", null, null, null, null))).containsExactly(failed);
        assertThat(ids(db, new EpisodeFilter(actor, null, null, "blue", null, null, null))).containsExactly(staged);
        assertThat(ids(db, new EpisodeFilter(actor, null, null, null, "staging", null, null))).containsExactly(staged);
        assertThat(ids(db, new EpisodeFilter(actor, null, null, null, EpisodeFilter.UNSET, null, null)))
                .containsExactly(late, failed, other, plain);
        assertThat(ids(db, new EpisodeFilter(actor, null, null, EpisodeFilter.UNSET, null, null, null)))
                .doesNotContain(staged).hasSize(4);
        assertThat(ids(db, new EpisodeFilter(actor, null, null, null, null, T0.plusMinutes(1), T0.plusMinutes(3))))
                .containsExactly(failed, other);
        assertThat(ids(db, new EpisodeFilter("nobody-" + UUID.randomUUID(), null, null, null, null, null, null))).isEmpty();
    }

    private static List<String> ids(TestJpa db, EpisodeFilter filter) {
        return walk(db, filter, 2).stream().map(EpisodeView::id).toList();
    }

    @Test
    void a_cursor_survives_its_round_trip_and_a_forged_one_is_a_400_naming_the_cursor() {
        EpisodeCursor c = new EpisodeCursor(T0, UUID.randomUUID().toString());
        assertThat(EpisodeCursor.decode(c.encode())).isEqualTo(c);
        assertThat(EpisodeCursor.decode(" ")).isNull();
        for (String forged : List.of("nonsense", "MjAyNi0xMS0zMFQwNjowMHwx", "%%%")) {
            assertThatThrownBy(() -> EpisodeCursor.decode(forged)).isInstanceOfSatisfying(Problem.class, p -> {
                assertThat(p.status()).isEqualTo(400);
                assertThat(p.field()).isEqualTo("cursor");
            });
        }
    }

    @Test
    void bad_filter_values_are_400s_naming_the_parameter() {
        assertThatThrownBy(() -> EpisodeFilter.parse(null, null, "sideways", null, null, null, null))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("status"));
        assertThatThrownBy(() -> EpisodeFilter.parse(null, null, null, null, null, "yesterday", null))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("from"));
        assertThatThrownBy(() -> EpisodeFilter.parse(null, null, null, null, null, null, "2026-13-01T00:00"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("to"));
        assertThatThrownBy(() -> EpisodeFilter.parse(null, null, null, null, null, "2026-11-30T08:00:00Z", "2026-11-30T07:00:00Z"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("from"));
        assertThat(EpisodeFilter.parse(null, null, "DONE", null, null, "2026-11-30T08:00:00+01:00", null))
                .isEqualTo(new EpisodeFilter(null, null, "done", null, null, LocalDateTime.of(2026, 11, 30, 7, 0), null));
    }
}
