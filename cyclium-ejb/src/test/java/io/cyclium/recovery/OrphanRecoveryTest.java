package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.ClaimState;
import io.cyclium.claims.FakeWorkClaims;
import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.keys.EpisodeClaimKey;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestConfig;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One recovery sweep on a real database with real leases: what it restarts, fails and leaves alone.
 * Each test sweeps an env of its own, so the rows of other tests are out of its scope.
 */
class OrphanRecoveryTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final TestJpa db = databases.jpa(Vendor.H2);
    private final RecoveryRows rows = new RecoveryRows(db);
    private final String env = "env-" + UUID.randomUUID().toString().substring(0, 8);
    private final RecordingTelemetry telemetry = new RecordingTelemetry();
    private final JpaWorkClaims workClaims = new JpaWorkClaims(db, db.vendor(), telemetry);
    private final LeasedClaimGate gate = new LeasedClaimGate(workClaims, "node-a", 30, telemetry);
    private final TestLocalActors actors = new TestLocalActors();
    private final List<EpisodeFinished> finished = new ArrayList<>();
    private final List<RecoveryPolicyResolver> resolvers = new ArrayList<>();

    private OrphanRecovery recovery() {
        return new OrphanRecovery(TestConfig.of("cyclium.recovery.stale-after-ms", "60000"), "node-a", db,
                new RecoveryStore(db.vendor()), gate, actors, resolvers, finished::add, telemetry);
    }

    private SweepReport sweep() {
        return recovery().sweep(SweepScope.of(null, env));
    }

    private String claimKey(String episodeId) {
        return EpisodeClaimKey.of("orphan:" + episodeId, episodeId);
    }

    @Test
    void a_stale_orphan_whose_policy_is_restart_is_handed_to_its_actor_once_with_the_claim_the_sweep_took() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).insert();

        SweepReport first = sweep();
        SweepReport second = sweep();

        assertThat(first.restarted()).isEqualTo(1);
        assertThat(second.found()).as("claimed for recovery: no longer an orphan").isZero();
        assertThat(actors.handovers).hasSize(1);
        TestLocalActors.Handover handover = actors.handovers.get(0);
        assertThat(handover.episodeId()).isEqualTo(id);
        assertThat(handover.claim().key()).isEqualTo(claimKey(id));
        assertThat(gate.stillOwns(handover.claim())).as("the restarted task runs under the sweep's lease").isTrue();
        assertThat(rows.row(id)).extracting(RecoveryRows.EpisodeRow::status, RecoveryRows.EpisodeRow::phase,
                RecoveryRows.EpisodeRow::attempts).as("an attempt is spent when the restarted task starts, not here")
                .containsExactly("running", RecoveryStore.RECOVERING, 1);
        assertThat(finished).isEmpty();
    }

    @Test
    void every_sweep_records_one_event_with_what_it_found_restarted_failed_and_skipped() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        rows.episode().scope(null, env).insert();
        rows.episode().scope(null, env).attempts(3, 3).insert();

        sweep();
        sweep();

        assertThat(telemetry.recorded("recovery_sweep", "outcome", "found")).as("one event per sweep, the empty one too")
                .containsExactly(2L, 0L);
        assertThat(telemetry.recorded("recovery_sweep", "outcome", "restarted")).containsExactly(1L, 0L);
        assertThat(telemetry.recorded("recovery_sweep", "outcome", "failed")).containsExactly(1L, 0L);
        assertThat(telemetry.recorded("recovery_sweep", "outcome", "skipped")).containsExactly(0L, 0L);
    }

    @Test
    void an_episode_stamped_interrupted_is_recovered_without_waiting_for_staleness() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).interrupted().quietFor(0).insert();
        String fresh = rows.episode().scope(null, env).quietFor(0).insert();

        SweepReport report = sweep();

        assertThat(report.found()).isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(id);
        assertThat(rows.row(fresh).attempts()).as("a running episode with a fresh journal is nobody's orphan").isEqualTo(1);
    }

    @Test
    void an_orphan_past_its_max_attempts_fails_as_orphaned_and_its_claim_is_settled_failed() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).attempts(3, 3).insert();

        SweepReport report = sweep();

        assertThat(report.failed()).isEqualTo(1);
        assertThat(actors.handovers).isEmpty();
        RecoveryRows.EpisodeRow row = rows.row(id);
        assertThat(row.status()).isEqualTo("failed");
        assertThat(row.errorClass()).isEqualTo("orphaned");
        assertThat(row.errorDetail()).isEqualTo("attempt 4 exceeds max attempts 3");
        assertThat(rows.journal(id)).containsExactly("1 episode_failed node-a");
        assertThat(workClaims.find(claimKey(id)).orElseThrow().state()).isEqualTo(ClaimState.FAILED);
        assertThat(finished).singleElement().satisfies(e -> {
            assertThat(e.episodeId()).isEqualTo(id);
            assertThat(e.status()).isEqualTo("failed");
        });
    }

    @Test
    void an_orphan_whose_policy_is_fail_and_that_ran_a_step_fails_on_its_first_recovery() {
        actors.runs("reports", RecoveryPolicy.FAIL);
        String id = rows.episode().scope(null, env).insert();
        rows.step(id, 1, "observation", "a-node-that-died");

        assertThat(sweep().failed()).isEqualTo(1);

        assertThat(rows.row(id).errorDetail()).isEqualTo("recovery policy fail");
        assertThat(actors.handovers).isEmpty();
    }

    @Test
    void an_orphan_that_ran_no_step_is_restarted_whatever_its_policy_markers_of_drains_and_resumes_not_counting() {
        actors.runs("reports", RecoveryPolicy.FAIL);
        String neverStarted = rows.episode().scope(null, env).queued().insert();
        String drainedTwice = rows.episode().scope(null, env).interrupted().insert();
        rows.step(drainedTwice, 1, "interrupted", "node-x");
        rows.step(drainedTwice, 2, "resumed", "node-y");
        rows.step(drainedTwice, 3, "interrupted", "node-y");

        SweepReport report = sweep();

        assertThat(report.restarted()).as("no side effect to protect: both run").isEqualTo(2);
        assertThat(report.failed()).isZero();
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId)
                .containsExactlyInAnyOrder(neverStarted, drainedTwice);
        assertThat(finished).isEmpty();
    }

    @Test
    void an_orphan_that_ran_no_step_still_fails_past_its_max_attempts() {
        actors.runs("reports", RecoveryPolicy.FAIL);
        String id = rows.episode().scope(null, env).attempts(3, 3).insert();

        assertThat(sweep().failed()).isEqualTo(1);

        assertThat(rows.row(id).errorDetail()).isEqualTo("attempt 4 exceeds max attempts 3");
    }

    @Test
    void an_episode_an_operator_ordered_to_resume_on_a_node_without_its_actor_is_resumed_at_once_not_failed() {
        actors.runs("reports", RecoveryPolicy.FAIL);
        // approved through a node that does not run the actor: nobody took it up, and it ran steps before
        String approved = rows.episode().scope(null, env).resumeDue(null).quietFor(0).insert();
        rows.step(approved, 1, "approval_requested", "node-x");
        rows.step(approved, 2, "approval_resolved", "node-y");
        // taken up by a node that runs it, which is alive and still within the quiet time: not an orphan
        String takenUp = rows.episode().scope(null, env).resumeDue("node-z").quietFor(0).insert();
        rows.step(takenUp, 1, "checkpoint", "node-x");

        SweepReport report = sweep();

        assertThat(report.found()).isEqualTo(1);
        assertThat(report.restarted()).isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(approved);
        assertThat(finished).isEmpty();
    }

    @Test
    void a_workflow_steps_orphan_is_restarted_like_a_step_whose_node_died_even_under_policy_fail() {
        actors.runs("reports", RecoveryPolicy.FAIL);
        String id = rows.episode().scope(null, env).workflowStep(UUID.randomUUID().toString(), "fetch").insert();
        rows.step(id, 1, "checkpoint", "a-node-that-died");

        SweepReport report = sweep();

        assertThat(report.restarted()).isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(id);
    }

    @Test
    void orphans_a_sweep_has_to_skip_do_not_hide_newer_ones_from_the_next_sweeps() {
        // a full batch of orphans whose actor runs nowhere yet: each sweep skips them
        actors.compiledButNotHere("elsewhere", RecoveryPolicy.RESTART);
        actors.runs("reports", RecoveryPolicy.RESTART);
        for (int i = 0; i < OrphanRecovery.BATCH; i++) {
            rows.episode().actor("elsewhere").scope(null, env).quietFor(900).insert();
        }
        String newer = rows.episode().scope(null, env).quietFor(600).insert();
        OrphanRecovery recovery = recovery();

        SweepReport first = recovery.sweep(SweepScope.of(null, env));
        SweepReport second = recovery.sweep(SweepScope.of(null, env));

        assertThat(first.restarted()).as("the oldest batch is all skipped").isZero();
        assertThat(second.restarted()).as("the next sweep goes on after the batch").isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(newer);
        assertThat(recovery.sweep(SweepScope.of(null, env)).found()).as("a short batch starts from the oldest again")
                .isEqualTo(OrphanRecovery.BATCH);
    }

    @Test
    void an_actor_compiled_nowhere_takes_its_policy_from_its_definition_row_then_from_a_resolver_else_fails() {
        String byRow = "row-" + UUID.randomUUID().toString().substring(0, 8);
        String byResolver = "res-" + UUID.randomUUID().toString().substring(0, 8);
        rows.definition(byRow, "restart");
        resolvers.add(o -> o.actorId().equals(byResolver) ? Optional.of(RecoveryPolicy.RESTART) : Optional.empty());
        OrphanRecovery recovery = recovery();

        assertThat(recovery.policyFor(orphan(byRow))).isEqualTo(RecoveryPolicy.RESTART);
        assertThat(recovery.policyFor(orphan(byResolver))).isEqualTo(RecoveryPolicy.RESTART);
        assertThat(recovery.policyFor(orphan("unknown-" + UUID.randomUUID()))).isEqualTo(RecoveryPolicy.FAIL);
    }

    private static Orphan orphan(String actorId) {
        return new Orphan(UUID.randomUUID().toString(), actorId, "digest", null, 1, 3, null, null, null, null, null, null);
    }

    @Test
    void a_restartable_orphan_of_an_actor_that_does_not_run_here_is_left_for_a_node_that_runs_it() {
        actors.compiledButNotHere("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).insert();

        SweepReport report = sweep();

        assertThat(report.skipped()).isEqualTo(1);
        assertThat(rows.row(id).attempts()).isEqualTo(1);
        assertThat(workClaims.find(claimKey(id))).as("no lease taken for it").isEmpty();
        assertThat(telemetry.count("recovery")).as("never silent: counted as waiting for a node that runs the actor")
                .isPositive();
    }

    @Test
    void a_versioned_orphan_that_ran_steps_waits_visibly_on_a_node_of_another_version_and_a_node_of_its_version_resumes_it() {
        actors.runs("reports", RecoveryPolicy.RESTART).deploys("reports", "2");
        String id = rows.episode().scope(null, env).version("1").insert();
        rows.step(id, 1, "checkpoint", "a-node-that-died");

        SweepReport onV2 = sweep();
        assertThat(onV2.skipped()).isEqualTo(1);
        assertThat(actors.handovers).as("its checkpoints never run on version 2").isEmpty();
        assertThat(workClaims.find(claimKey(id))).as("no lease taken for it").isEmpty();
        assertThat(rows.row(id).attempts()).isEqualTo(1);
        assertThat(rows.recoveryWaiting(id)).isEqualTo("waits for a node that deploys reports/digest version 1"
                + " (node-a deploys version 2)");
        assertThat(telemetry.count("recovery_waiting_for_version")).isPositive();
        assertThat(sweep().skipped()).as("and goes on waiting").isEqualTo(1);

        actors.deploys("reports", "1");
        assertThat(sweep().restarted()).as("a node of version 1").isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(id);
        assertThat(rows.recoveryWaiting(id)).as("claimed: no longer waiting").isNull();
    }

    @Test
    void an_orphan_that_ran_no_step_or_started_unversioned_is_resumed_by_a_node_of_any_version() {
        actors.runs("reports", RecoveryPolicy.RESTART).deploys("reports", "2");
        String neverRan = rows.episode().scope(null, env).version("1").queued().insert();
        String unversioned = rows.episode().scope(null, env).insert();
        rows.step(unversioned, 1, "checkpoint", "a-node-that-died");

        assertThat(sweep().restarted()).isEqualTo(2);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId)
                .containsExactlyInAnyOrder(neverRan, unversioned);
    }

    @Test
    void an_orphan_whose_lease_another_node_still_holds_is_skipped() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).insert();
        workClaims.acquire(claimKey(id), FakeWorkClaims.OTHER_OWNER, 60, "episode");

        assertThat(sweep().skipped()).isEqualTo(1);

        assertThat(rows.row(id).attempts()).isEqualTo(1);
        assertThat(actors.handovers).isEmpty();
    }

    @Test
    void orphans_of_another_env_or_another_stack_are_left_alone() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String otherEnv = rows.episode().scope(null, env + "-other").interrupted().insert();
        String otherStack = rows.episode().scope("stack-y", env).interrupted().insert();
        String noStack = rows.episode().scope(null, env).interrupted().insert();

        SweepReport report = recovery().sweep(SweepScope.of("stack-x", env));

        assertThat(report.restarted()).isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId)
                .as("rows from single-stack days are everybody's").containsExactly(noStack);
        assertThat(rows.row(otherEnv).attempts()).isEqualTo(1);
        assertThat(rows.row(otherStack).attempts()).isEqualTo(1);
        assertThat(rows.row(otherStack).phase()).isEqualTo(RecoveryStore.INTERRUPTED);
    }

    @Test
    void a_draining_node_sweeps_nothing_not_even_what_its_own_drain_just_stamped() {
        actors.runs("reports", RecoveryPolicy.RESTART);
        String id = rows.episode().scope(null, env).interrupted().insert();
        actors.beginDrain();

        SweepReport report = sweep();

        assertThat(report.found()).isZero();
        assertThat(rows.row(id).attempts()).isEqualTo(1);
        assertThat(workClaims.find(claimKey(id))).isEmpty();
    }

    @Test
    void a_node_switched_to_trigger_only_restarts_nothing_and_sweeps_again_once_switched_back_to_full() {
        actors.runs("reports", RecoveryPolicy.RESTART).triggerOnly(true);
        String id = rows.episode().scope(null, env).insert();

        assertThat(sweep().found()).isZero();
        assertThat(actors.handovers).isEmpty();
        assertThat(rows.row(id).attempts()).isEqualTo(1);

        actors.triggerOnly(false);
        assertThat(sweep().restarted()).isEqualTo(1);
        assertThat(actors.handovers).extracting(TestLocalActors.Handover::episodeId).containsExactly(id);
    }
}
