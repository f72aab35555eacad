package io.cyclium.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.episode.EpisodeStore;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseTime;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.OwnDatabases;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.StatementCountingTx;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bulk actions on H2, PostgreSQL and MariaDB: the preview counts and changes nothing, the start is
 * confirmed against the preview and freezes its targets, each item gets its result (done, skipped
 * with the single operation's reason, failed with the error), and an action whose node died is
 * continued by another node without any item's effect happening twice. The operation here is the
 * cancel of a blocked episode through the guard {@code EpisodeService.cancel} uses for it
 * ({@link EpisodeStore#cancelIdle}); its effects are counted per episode.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class BulkActionsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
    private static final LocalDateTime START = LocalDateTime.of(2026, 11, 30, 8, 0);

    @RegisterExtension
    final OwnDatabases own = new OwnDatabases();

    private final MutableClock clock = new MutableClock(T0);
    private final RecordingTelemetry telemetry = new RecordingTelemetry();
    /** How many times each episode was really canceled (the guarded UPDATE changed its row). */
    private final Map<String, AtomicInteger> canceled = new ConcurrentHashMap<>();

    /** The cancel of a blocked episode: one guarded UPDATE; a refusal says what the episode is. */
    private BulkActions.Operation cancel(TestJpa db) {
        return (kind, episodeId, by) -> {
            assertThat(kind).isEqualTo(BulkKind.CANCEL);
            int changed = db.inNewTransaction(em -> new EpisodeStore(db.vendor()).cancelIdle(em, episodeId, false));
            if (changed == 0) {
                String status = db.inNewTransaction(em -> (String) em.createNativeQuery(
                        "SELECT status FROM cyclium_episodes WHERE id = ?1").setParameter(1, episodeId).getSingleResult());
                throw Problem.conflict("episode " + episodeId + " is " + status + ", not blocked");
            }
            canceled.computeIfAbsent(episodeId, k -> new AtomicInteger()).incrementAndGet();
            return "canceled";
        };
    }

    private BulkActions node(TestJpa db, String name, BulkActions.Operation op, int max) {
        return new BulkActions(db, DatabaseTime.following(db.vendor(), clock), op, name, max, BulkActions.LEASE, telemetry);
    }

    /** A node whose statements {@code counted} counts. */
    private BulkActions node(TestJpa db, StatementCountingTx counted, String name, BulkActions.Operation op) {
        return new BulkActions(counted, DatabaseTime.following(db.vendor(), clock), op, name, 100, BulkActions.LEASE, telemetry);
    }

    /** The UPDATEs among the statements {@code counted} saw. */
    private static List<String> updates(StatementCountingTx counted) {
        return counted.texts().stream().filter(t -> t.startsWith("UPDATE")).toList();
    }

    /** {@code n} episodes of actor "sweeper" with this status, started a minute apart (newest last). */
    private static List<String> episodes(TestJpa db, String status, int n, int fromMinute) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(new EpisodeRows(db).actor("sweeper", "tidy").status(status).insert(START.plusMinutes(fromMinute + i)));
        }
        return ids;
    }

    private static String status(TestJpa db, String id) {
        return db.inNewTransaction(em -> (String) em.createNativeQuery("SELECT status FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, id).getSingleResult());
    }

    private static EpisodeFilter sweeper() {
        return BulkFilters.of(Map.of("actor", "sweeper"));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_preview_counts_and_samples_the_matching_episodes_and_changes_nothing(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 25, 0);
        new EpisodeRows(db).actor("other", "tidy").status("blocked").insert(START);
        BulkActions bulk = node(db, "node-a", cancel(db), 100);

        BulkPreview preview = bulk.preview(BulkKind.CANCEL, sweeper());

        assertThat(preview.count()).isEqualTo(25);
        assertThat(preview.sample()).as("the first page of the list, newest first").hasSize(BulkActions.SAMPLE)
                .first().extracting(EpisodeView::id).isEqualTo(blocked.get(24));
        assertThat(preview.token()).startsWith("25-");
        assertThat(preview.refusal()).isNull();
        assertThat(preview.filter()).containsExactly(Map.entry("actor", "sweeper"));
        assertThat(blocked).allSatisfy(id -> assertThat(status(db, id)).isEqualTo("blocked"));
        assertThat(bulk.newest(10)).as("no action stored").isEmpty();

        BulkPreview over = node(db, "node-a", cancel(db), 20).preview(BulkKind.CANCEL, sweeper());
        assertThat(over.count()).as("counted above the cap too").isEqualTo(25);
        assertThat(over.token()).isNull();
        assertThat(over.refusal()).contains("more than a bulk action takes (20, cyclium.bulk.max-items)");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_start_freezes_the_confirmed_set_and_records_each_item_done_or_skipped_with_its_reason(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 4, 0);
        String finished = episodes(db, "done", 1, 10).get(0);
        BulkActions bulk = node(db, "node-a", cancel(db), 100);
        BulkPreview preview = bulk.preview(BulkKind.CANCEL, sweeper());

        BulkActions.Accepted accepted = bulk.start(BulkKind.CANCEL, sweeper(), null, preview.token(), "alice");
        String late = episodes(db, "blocked", 1, 20).get(0);
        assertThat(accepted.view().total()).isEqualTo(5);
        assertThat(accepted.view().pending()).isEqualTo(5);
        assertThat(accepted.view().status()).isEqualTo("running");
        assertThat(accepted.view().claimedBy()).isEqualTo("node-a");
        assertThat(accepted.view().createdBy()).isEqualTo("alice");

        bulk.process(accepted.view().id(), accepted.fence());

        BulkActionView view = bulk.find(accepted.view().id()).orElseThrow();
        assertThat(view.status()).isEqualTo("done");
        assertThat(view.finishedAt()).isNotNull();
        assertThat(view.claimedBy()).isNull();
        assertThat(List.of(view.done(), view.skipped(), view.failed(), view.pending())).containsExactly(4L, 1L, 0L, 0L);
        List<BulkItemView> items = bulk.items(view.id(), 0, null, 100);
        assertThat(items).extracting(BulkItemView::episodeId).as("frozen in the list's order; the later episode is not in it")
                .containsExactly(finished, blocked.get(3), blocked.get(2), blocked.get(1), blocked.get(0));
        assertThat(items.get(0).result()).isEqualTo("skipped");
        assertThat(items.get(0).reason()).isEqualTo("episode " + finished + " is done, not blocked");
        assertThat(items.subList(1, 5)).allSatisfy(i -> {
            assertThat(i.result()).isEqualTo("done");
            assertThat(i.reason()).isEqualTo("canceled");
            assertThat(i.finishedAt()).isNotNull();
        });
        assertThat(status(db, late)).as("matches the filter now, but was not in the set").isEqualTo("blocked");
        assertThat(bulk.items(view.id(), 0, BulkItemResult.SKIPPED, 100)).extracting(BulkItemView::itemNo).containsExactly(1);
        assertThat(bulk.items(view.id(), 2, null, 2)).extracting(BulkItemView::itemNo).containsExactly(3, 4);
        assertThat(telemetry.countTagged("bulk_items", "action", "cancel", "result", "done")).isEqualTo(4);
        assertThat(telemetry.countTagged("bulk_items", "action", "cancel", "result", "skipped")).isEqualTo(1);
        assertThat(bulk.newest(10)).extracting(BulkActionView::id).containsExactly(view.id());
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_unconfirmed_start_a_changed_set_and_a_set_over_the_cap_are_refused_and_store_nothing(Vendor vendor) {
        TestJpa db = own.open(vendor);
        episodes(db, "blocked", 3, 0);
        BulkActions bulk = node(db, "node-a", cancel(db), 3);
        BulkPreview preview = bulk.preview(BulkKind.CANCEL, sweeper());

        assertThatThrownBy(() -> bulk.start(BulkKind.CANCEL, sweeper(), null, null, "alice")).isInstanceOfSatisfying(Problem.class,
                p -> assertThat(p.status() + " " + p.field()).isEqualTo("400 confirm"));
        assertThatThrownBy(() -> bulk.start(BulkKind.CANCEL, sweeper(), 2L, null, "alice")).isInstanceOfSatisfying(Problem.class,
                p -> {
                    assertThat(p.status()).isEqualTo(409);
                    assertThat(p.getMessage()).contains("the preview showed 2 matching episodes, 3 match now");
                });
        assertThatThrownBy(() -> bulk.start(BulkKind.RESTART, sweeper(), null, preview.token(), "alice"))
                .as("a token is for its own action").isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(409));

        // one episode ends and another starts: the count is the same, the set is not
        String one = preview.sample().get(0).id();
        db.run(em -> new EpisodeStore(db.vendor()).cancelIdle(em, one, false));
        db.run(em -> em.createNativeQuery("UPDATE cyclium_episodes SET actor_id = 'moved' WHERE id = ?1").setParameter(1, one)
                .executeUpdate());
        episodes(db, "blocked", 1, 30);
        assertThat(bulk.preview(BulkKind.CANCEL, sweeper()).count()).isEqualTo(3);
        assertThatThrownBy(() -> bulk.start(BulkKind.CANCEL, sweeper(), null, preview.token(), "alice"))
                .isInstanceOfSatisfying(Problem.class, p -> {
                    assertThat(p.status()).isEqualTo(409);
                    assertThat(p.getMessage()).contains("changed since the preview (3 match now, and not the same ones)");
                });

        episodes(db, "blocked", 1, 40);
        assertThatThrownBy(() -> bulk.start(BulkKind.CANCEL, sweeper(), 4L, null, "alice")).isInstanceOfSatisfying(Problem.class,
                p -> {
                    assertThat(p.status() + " " + p.field()).isEqualTo("400 filter");
                    assertThat(p.getMessage()).contains("matches 4 episodes, more than a bulk action takes (3");
                });
        assertThatThrownBy(() -> bulk.start(BulkKind.CANCEL, BulkFilters.of(Map.of("actor", "nobody")), 0L, null, "alice"))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status() + " " + p.field()).isEqualTo("400 filter"));
        assertThat(bulk.newest(10)).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void a_body_s_filter_names_the_bad_field_and_must_not_be_empty() {
        assertThatThrownBy(() -> BulkFilters.parse(jakarta.json.Json.createObjectBuilder().add("actr", "x").build()))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("filter.actr"));
        assertThatThrownBy(() -> BulkFilters.parse(jakarta.json.Json.createObjectBuilder().add("status", "sleeping").build()))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("filter.status"));
        assertThatThrownBy(() -> BulkFilters.parse(jakarta.json.Json.createObjectBuilder().add("from", "yesterday").build()))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("filter.from"));
        assertThatThrownBy(() -> BulkFilters.parse(jakarta.json.Json.createObjectBuilder().add("actor", 7).build()))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("filter.actor"));
        assertThatThrownBy(() -> BulkFilters.parse(jakarta.json.Json.createObjectBuilder().build()))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("filter"));
        assertThatThrownBy(() -> BulkKind.parse("delete")).isInstanceOfSatisfying(Problem.class, p -> {
            assertThat(p.field()).isEqualTo("action");
            assertThat(p.getMessage()).contains("cancel, retry, restart, output-retry");
        });
    }

    /** What a node that dies does: stops dead, in the middle of an item, after its effect. */
    static final class NodeDied extends Error {
    }

    /** {@code real}, on a node that dies right after the effect of its {@code n}th item, before recording it. */
    private static BulkActions.Operation diesAfter(int n, BulkActions.Operation real) {
        AtomicInteger calls = new AtomicInteger();
        return (kind, id, by) -> {
            String r = real.apply(kind, id, by);
            if (calls.incrementAndGet() == n) {
                throw new NodeDied();
            }
            return r;
        };
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void another_node_continues_an_action_whose_node_died_and_no_item_is_done_twice(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 120, 0);
        BulkActions.Operation real = cancel(db);
        // node A dies right after canceling its 70th episode, before recording it
        BulkActions a = node(db, "node-a", diesAfter(70, real), 1_000);
        BulkActions b = node(db, "node-b", real, 1_000);
        BulkActions.Accepted accepted = a.start(BulkKind.CANCEL, sweeper(), 120L, null, "alice");
        String id = accepted.view().id();

        assertThatThrownBy(() -> a.process(id, accepted.fence())).isInstanceOf(NodeDied.class);
        BulkActionView midway = b.find(id).orElseThrow();
        assertThat(midway.done()).isEqualTo(69);
        assertThat(midway.pending()).as("the 70th is still working, and 50 never taken").isEqualTo(51);
        assertThat(midway.claimedBy()).isEqualTo("node-a");

        assertThat(b.continueOrphans(5)).as("not while A's lease runs").isZero();
        clock.advance(BulkActions.LEASE.plusSeconds(1));
        assertThat(b.continueOrphans(5)).isEqualTo(1);

        BulkActionView done = b.find(id).orElseThrow();
        assertThat(done.status()).isEqualTo("done");
        assertThat(List.of(done.done(), done.skipped(), done.failed())).containsExactly(119L, 1L, 0L);
        BulkItemView seventieth = b.items(id, 69, null, 1).get(0);
        assertThat(seventieth.result()).isEqualTo("skipped");
        assertThat(seventieth.reason()).isEqualTo("after an interrupted attempt: episode " + seventieth.episodeId()
                + " is canceled, not blocked");
        assertThat(blocked).allSatisfy(e -> {
            assertThat(status(db, e)).isEqualTo("canceled");
            assertThat(canceled.get(e)).as("canceled exactly once: " + e).hasValue(1);
        });

        // A was only stalled, not dead: it comes back holding fence 1 and can neither take nor record anything
        a.process(id, accepted.fence());
        boolean recorded = db.inNewTransaction(em -> new BulkStore(DatabaseTime.following(db.vendor(), clock))
                .record(em, id, 70, accepted.fence(), BulkItemResult.FAILED, "late"));
        assertThat(recorded).isFalse();
        assertThat(b.find(id).orElseThrow().skipped()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_node_whose_lease_lapsed_takes_no_item_once_another_node_took_the_action_over(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 5, 0);
        BulkActions a = node(db, "node-a", cancel(db), 100);
        BulkActions b = node(db, "node-b", cancel(db), 100);
        BulkActions.Accepted accepted = a.start(BulkKind.CANCEL, sweeper(), 5L, null, "alice");
        String id = accepted.view().id();
        BulkStore store = new BulkStore(DatabaseTime.following(db.vendor(), clock));
        // A stalls before its first item; its lease lapses and B takes the action over
        clock.advance(BulkActions.LEASE.plusSeconds(1));
        long fenceB = db.inNewTransaction(em -> store.claim(em, id, "node-b", BulkActions.LEASE)).orElseThrow();
        assertThat(fenceB).isEqualTo(2);

        boolean takenByA = db.inNewTransaction(em -> store.take(em, id, 1, accepted.fence()));
        assertThat(takenByA).as("the stale fence takes nothing").isFalse();
        a.process(id, accepted.fence());
        assertThat(b.find(id).orElseThrow().pending()).as("A did nothing").isEqualTo(5);
        b.process(id, fenceB);

        assertThat(b.find(id).orElseThrow().done()).isEqualTo(5);
        assertThat(blocked).allSatisfy(e -> assertThat(canceled.get(e)).hasValue(1));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_failing_operation_is_recorded_as_failed_with_its_error_and_the_rest_goes_on(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 3, 0);
        BulkActions.Operation real = cancel(db);
        BulkActions bulk = node(db, "node-a", (kind, id, by) -> {
            if (id.equals(blocked.get(1))) {
                throw new IllegalStateException("adapter down");
            }
            assertThat(by).startsWith("alice (bulk action ");
            return real.apply(kind, id, by);
        }, 100);
        BulkActions.Accepted accepted = bulk.start(BulkKind.CANCEL, sweeper(), 3L, null, "alice");
        bulk.process(accepted.view().id(), accepted.fence());

        List<BulkItemView> items = bulk.items(accepted.view().id(), 0, null, 10);
        assertThat(items).extracting(BulkItemView::result).containsExactly("done", "failed", "done");
        assertThat(items.get(1).reason()).startsWith("IllegalStateException: adapter down (server log error ");
        assertThat(bulk.find(accepted.view().id()).orElseThrow().status()).isEqualTo("done");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_cancel_through_another_node_stops_the_processing_node_at_its_next_item_and_skips_the_rest(Vendor vendor) {
        TestJpa db = own.open(vendor);
        List<String> blocked = episodes(db, "blocked", 120, 0);
        BulkActions.Operation real = cancel(db);
        BulkActions b = node(db, "node-b", real, 1_000);
        AtomicInteger calls = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> actionId = new java.util.concurrent.atomic.AtomicReference<>();
        // while node A works on its 30th item, an operator cancels the action through node B
        BulkActions a = node(db, "node-a", (kind, id, by) -> {
            String r = real.apply(kind, id, by);
            if (calls.incrementAndGet() == 30) {
                BulkActionView canceled = b.cancel(actionId.get());
                assertThat(canceled.status()).isEqualTo("canceled");
                assertThat(canceled.pending()).as("the item in A's hand is still open").isEqualTo(1);
            }
            return r;
        }, 1_000);
        BulkActions.Accepted accepted = a.start(BulkKind.CANCEL, sweeper(), 120L, null, "alice");
        actionId.set(accepted.view().id());

        a.process(accepted.view().id(), accepted.fence());

        assertThat(calls).as("A took no item after the cancel").hasValue(30);
        BulkActionView view = b.find(accepted.view().id()).orElseThrow();
        assertThat(view.status()).isEqualTo("canceled");
        assertThat(view.finishedAt()).isNotNull();
        assertThat(List.of(view.done(), view.skipped(), view.failed(), view.pending())).containsExactly(30L, 90L, 0L, 0L);
        List<BulkItemView> items = b.items(view.id(), 0, null, 200);
        assertThat(items.subList(0, 30)).allSatisfy(i -> assertThat(i.reason()).isEqualTo("canceled"));
        assertThat(items.subList(30, 120)).allSatisfy(i -> {
            assertThat(i.result()).isEqualTo("skipped");
            assertThat(i.reason()).isEqualTo("action canceled");
            assertThat(i.finishedAt()).isNotNull();
        });
        for (BulkItemView i : items) {
            assertThat(status(db, i.episodeId())).isEqualTo(i.itemNo() <= 30 ? "canceled" : "blocked");
            AtomicInteger times = canceled.get(i.episodeId());
            assertThat(times == null ? 0 : times.get()).as("canceled once, or never: " + i.episodeId())
                    .isEqualTo(i.itemNo() <= 30 ? 1 : 0);
        }
        assertThat(blocked).hasSize(120);
        assertThat(b.continueOrphans(5)).as("a canceled action is nobody's orphan").isZero();
        assertThat(b.find(view.id()).orElseThrow().skipped()).isEqualTo(90);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void cancelling_a_finished_or_canceled_action_names_its_status_and_an_unknown_one_is_not_found(Vendor vendor) {
        TestJpa db = own.open(vendor);
        episodes(db, "blocked", 2, 0);
        BulkActions bulk = node(db, "node-a", cancel(db), 100);
        BulkActions.Accepted accepted = bulk.start(BulkKind.CANCEL, sweeper(), 2L, null, "alice");
        bulk.process(accepted.view().id(), accepted.fence());

        assertThatThrownBy(() -> bulk.cancel(accepted.view().id())).isInstanceOfSatisfying(Problem.class, p -> {
            assertThat(p.status()).isEqualTo(409);
            assertThat(p.getMessage()).contains("is done: only a running one can be canceled");
        });
        assertThatThrownBy(() -> bulk.cancel("no-such-action")).isInstanceOfSatisfying(Problem.class,
                p -> assertThat(p.status()).isEqualTo(404));

        episodes(db, "blocked", 1, 10);
        BulkActions.Accepted second = bulk.start(BulkKind.CANCEL, BulkFilters.of(Map.of("actor", "sweeper", "status", "blocked")),
                1L, null, "alice");
        bulk.cancel(second.view().id());
        assertThatThrownBy(() -> bulk.cancel(second.view().id())).isInstanceOfSatisfying(Problem.class,
                p -> assertThat(p.getMessage()).contains("is canceled"));
        bulk.process(second.view().id(), second.fence());
        assertThat(bulk.find(second.view().id()).orElseThrow().skipped()).as("nothing ran after the cancel").isEqualTo(1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_item_a_dead_node_left_working_in_a_canceled_action_is_skipped_once_its_lease_lapsed(Vendor vendor) {
        TestJpa db = own.open(vendor);
        episodes(db, "blocked", 10, 0);
        BulkActions.Operation real = cancel(db);
        BulkActions a = node(db, "node-a", diesAfter(4, real), 100);
        StatementCountingTx counted = new StatementCountingTx(db);
        BulkActions b = node(db, counted, "node-b", real);
        BulkActions.Accepted accepted = a.start(BulkKind.CANCEL, sweeper(), 10L, null, "alice");
        String id = accepted.view().id();
        assertThatThrownBy(() -> a.process(id, accepted.fence())).isInstanceOf(NodeDied.class);

        b.cancel(id);
        assertThat(b.find(id).orElseThrow().pending()).as("the 4th may still be recorded by its holder").isEqualTo(1);
        int before = updates(counted).size();
        b.continueOrphans(5);
        assertThat(b.find(id).orElseThrow().pending()).as("not while its lease runs").isEqualTo(1);
        assertThat(updates(counted)).as("nor any UPDATE tried").hasSize(before);
        clock.advance(BulkActions.LEASE.plusSeconds(1));
        b.continueOrphans(5);

        BulkActionView view = b.find(id).orElseThrow();
        assertThat(List.of(view.done(), view.skipped(), view.pending())).containsExactly(3L, 7L, 0L);
        assertThat(b.items(id, 3, null, 1).get(0).reason()).isEqualTo("action canceled after an interrupted attempt: it may"
                + " have been done");
        assertThat(view.status()).isEqualTo("canceled");
        assertThat(updates(counted)).as("the sweep's one settle").hasSize(before + 1);

        long statements = counted.statements();
        assertThat(b.continueOrphans(5)).isZero();
        assertThat(counted.statements()).as("settled, the action is no longer read as an orphan").isEqualTo(statements + 1);
        assertThat(updates(counted)).hasSize(before + 1);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_pass_with_nothing_to_continue_or_settle_is_one_read_in_one_transaction(Vendor vendor) {
        TestJpa db = own.open(vendor);
        episodes(db, "blocked", 3, 0);
        BulkActions a = node(db, "node-a", cancel(db), 100);
        // history, not work: one action done, one canceled with nothing left working
        BulkActions.Accepted done = a.start(BulkKind.CANCEL, sweeper(), 3L, null, "alice");
        a.process(done.view().id(), done.fence());
        episodes(db, "blocked", 2, 10);
        BulkActions.Accepted canceled = a.start(BulkKind.CANCEL, BulkFilters.of(Map.of("actor", "sweeper", "status", "blocked")),
                2L, null, "alice");
        a.cancel(canceled.view().id());
        clock.advance(BulkActions.LEASE.plusSeconds(1));
        StatementCountingTx counted = new StatementCountingTx(db);

        assertThat(node(db, counted, "node-b", cancel(db)).continueOrphans(5)).isZero();

        assertThat(counted.transactions()).isEqualTo(1);
        assertThat(counted.texts()).singleElement().asString().startsWith("SELECT");
        assertThat(counted.statements()).isEqualTo(1);
    }

    /** PostgreSQL only: this database's committed transactions and updated rows so far (null elsewhere). */
    private static long[] transactions(TestJpa db) {
        if (db.vendor() != io.cyclium.store.DatabaseVendor.POSTGRESQL) {
            return null;
        }
        try {
            Thread.sleep(11_000); // an idle backend reports its counts within 10 s (PostgreSQL 15)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Object[] row = db.inNewTransaction(em -> (Object[]) em.createNativeQuery("SELECT xact_commit, tup_updated FROM"
                + " pg_stat_database WHERE datname = current_database()").getSingleResult());
        return new long[] {((Number) row[0]).longValue(), ((Number) row[1]).longValue()};
    }

    /**
     * Not a check: how many items per second one node processes (a bulk cancel of blocked
     * episodes), printed as [figures]. {@code -Dbulk.rate=true} runs it.
     */
    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "bulk.rate", matches = "true")
    void items_per_second_on_one_node(Vendor vendor) {
        TestJpa db = own.open(vendor);
        int n = Integer.getInteger("bulk.rate.items", 1_000);
        episodes(db, "blocked", n, 0);
        BulkActions bulk = node(db, "node-a", cancel(db), n);
        BulkActions.Accepted accepted = bulk.start(BulkKind.CANCEL, sweeper(), (long) n, null, "alice");
        long[] before = transactions(db);
        long t0 = System.nanoTime();
        bulk.process(accepted.view().id(), accepted.fence());
        double seconds = (System.nanoTime() - t0) / 1e9;
        long[] after = transactions(db);
        assertThat(bulk.find(accepted.view().id()).orElseThrow().done()).isEqualTo(n);
        System.out.printf("[figures] bulk cancel of %d on %s, one node: %.1f s, %.0f items/s%s%n", n, vendor, seconds, n / seconds,
                before == null ? "" : String.format(", per item %.2f commits and %.2f rows updated (this database's"
                        + " pg_stat_database)", (after[0] - before[0]) / (double) n, (after[1] - before[1]) / (double) n));
    }
}
