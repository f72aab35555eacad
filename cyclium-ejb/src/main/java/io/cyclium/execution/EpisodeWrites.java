package io.cyclium.execution;

import io.cyclium.telemetry.SpanAttributes;
import io.cyclium.store.Jsons;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeProgressed;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.WaitStore;
import io.cyclium.claims.HeldClaim;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.OneStatementWrites;
import io.cyclium.store.Undo;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.Optional;
import java.util.logging.Logger;
import io.cyclium.telemetry.TraceSpan;

/**
 * What a running task writes about its episode, each change in one short transaction of its own:
 * journal rows (the step number is the row's key, so a step another owner already wrote is refused
 * rather than written twice), checkpoints, and the status changes. Every status change is guarded
 * on {@code running} in {@link io.cyclium.episode.EpisodeStore}: false from here means the episode
 * moved on under us (canceled, recovered, taken over) and whoever moved it owns what follows.
 */
final class EpisodeWrites {

    private static final Logger LOG = Logger.getLogger(EpisodeWrites.class.getName());

    /** The phase a blocked episode's checkpoint carries (approval or wait). */
    static final String BLOCKED_PHASE = "__blocked__";

    private final TaskEnvironment env;
    private final String episodeId;
    private int stepNo;
    private HeldClaim claim;
    private boolean claimSettled;
    private boolean checkpointsExist;
    private boolean mayBeQueued;
    private TraceSpan trace = TraceSpan.NONE;
    private WriteRetry retry;
    /** The terminal event of this episode's workflow step, less its status (null: not a workflow step). */
    private EpisodeFinished stepEnding;
    private boolean advancedInCommit;

    EpisodeWrites(TaskEnvironment env, String episodeId, int firstStepNo) {
        this.env = env;
        this.episodeId = episodeId;
        this.stepNo = firstStepNo;
    }

    /**
     * The lease this run holds: from now on the terminal writes (finish, end, block) settle it in
     * their own transaction, guarded by its fence, instead of in one more transaction after.
     * {@code checkpointsExist}: the episode had checkpoints when this run started.
     */
    void holding(HeldClaim claim, boolean checkpointsExist) {
        this.claim = claim;
        this.checkpointsExist = checkpointsExist;
    }

    /**
     * The run started from the row as inserted, without the usual claim of the row
     * ({@code claimRun}): a fresh episode may still be marked queued, and the first journal write
     * clears that in its transaction (the terminal writes clear it themselves).
     */
    void startedFresh() {
        this.mayBeQueued = true;
    }

    /** How a write that could not reach the database is tried again (none: one try, as in tools and tests). */
    void retrying(WriteRetry retry) {
        this.retry = retry;
    }

    /**
     * The episode runs step {@code stepId} of workflow instance {@code instanceId}: its terminal
     * write (finish or end) also records the step and advances the instance, in its transaction
     * ({@link TaskEnvironment#advancement}).
     */
    void forWorkflowStep(String actorId, String expectationId, String instanceId, String stepId) {
        this.stepEnding = new EpisodeFinished(episodeId, actorId, expectationId, null, null, instanceId, stepId);
    }

    /** True once a terminal write committed with its workflow step recorded and its instance advanced. */
    boolean advancedInCommit() {
        return advancedInCommit;
    }

    /** True once a terminal write committed together with the lease's settlement. */
    boolean claimSettled() {
        return claimSettled;
    }

    /** The number the next journal row will take. */
    int nextStepNo() {
        return stepNo;
    }

    /** One journal row; false when another owner already wrote this step. */
    boolean journal(String kind, JsonObject detail, String errorClass, String sideEffectKey, Long costMs) {
        int no = stepNo++;
        boolean leaveQueue = mayBeQueued;
        mayBeQueued = false;
        Reruns reruns = new Reruns();
        boolean written = inTransaction(() -> "journal step " + no + " (" + kind + ")", em -> {
            if (reruns.mayHaveLanded(em) && env.store().journaledBy(em, episodeId, no, kind, env.node())) {
                return true;
            }
            if (leaveQueue) {
                env.store().leftQueue(em, episodeId);
            }
            boolean w = env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, sideEffectKey, costMs);
            reruns.ran(em);
            return w;
        });
        if (!written) {
            LOG.info(() -> "Episode " + episodeId + ": step " + no + " was already journaled by another owner");
        } else {
            progressed(no, kind);
        }
        return written;
    }

    /** What an advancement does once its transaction committed; never fails the episode, whose write stands. */
    private void afterCommit(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.log(java.util.logging.Level.WARNING, "Episode " + episodeId + ": its workflow step advanced, but what"
                    + " follows its commit failed (the next steps' episodes are stored; recovery starts them)", e);
        }
    }

    /** Tells listeners (open console pages) of a committed row; never fails the step that wrote it. */
    private void progressed(int no, String kind) {
        try {
            env.progressed().accept(new EpisodeProgressed(episodeId, no, kind, env.node()));
        } catch (RuntimeException e) {
            LOG.log(java.util.logging.Level.FINE, "A listener of episode " + episodeId + "'s step " + no + " failed", e);
        }
    }

    /** The {@code resumed} marker: this attempt continues from the checkpoint (or from init when there is none), under {@code claim}. */
    boolean resumed(int attempt, Optional<Integer> fromCheckpoint, HeldClaim claim) {
        JsonObject marker = Jsons.object()
                .add("event", "resumed")
                .add("attempt", attempt)
                .add("fromCheckpoint", fromCheckpoint.map(n -> (JsonValue) Jsons.value(n)).orElse(JsonValue.NULL))
                // the lease this run holds: the console's timeline shows who took over, at which fence
                .add("fence", claim.passthrough() ? JsonValue.NULL : Jsons.value(claim.fence()))
                .build();
        return journal(StepKind.RESUMED, marker, null, null, null);
    }

    /**
     * A checkpoint and its journal row together; returns the checkpoint's number (its step
     * number), or -1 when the step was taken by another owner.
     */
    int checkpoint(String stateJson, int stateVersion, String phase, String kind, JsonObject detail) {
        int no = stepNo++;
        boolean leaveQueue = mayBeQueued;
        mayBeQueued = false;
        Reruns reruns = new Reruns();
        boolean written = inTransaction(() -> "checkpoint " + no, em -> {
            if (reruns.mayHaveLanded(em) && env.store().journaledBy(em, episodeId, no, kind, env.node())) {
                return true;
            }
            if (leaveQueue) {
                env.store().leftQueue(em, episodeId);
            }
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                return false;
            }
            env.store().checkpoint(em, episodeId, no, phase, stateVersion, stateJson);
            reruns.ran(em);
            return true;
        });
        checkpointsExist |= written;
        if (written) {
            progressed(no, kind);
        }
        return written ? no : -1;
    }

    /**
     * Status {@code blocked}, checkpoint and journal in one transaction; false when the episode
     * moved on. Every transaction that changes an episode row and journals takes the row first and
     * the journal's step number second — the drain's order (it stamps rows, then journals markers);
     * the opposite order deadlocked with it. A step number taken meanwhile undoes the status change.
     */
    boolean block(String stateJson, int stateVersion, String kind, JsonObject detail, int turns) {
        int cpNo = stepNo; // checkpoint numbers only need to grow; reuse the step number
        int no = stepNo++;
        boolean blocked = rowThenJournal(() -> "block at step " + no, no, kind, true, null, null, em -> {
            if (env.store().block(em, episodeId, turns) != 1) {
                return false;
            }
            env.store().checkpoint(em, episodeId, cpNo, BLOCKED_PHASE, stateVersion, stateJson);
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                throw new Undo("step " + no + " of episode " + episodeId + " was journaled by another owner");
            }
            return true;
        });
        if (blocked) {
            progressed(no, kind);
        }
        return blocked;
    }

    /** What a sleep's or wait's block came to: blocked, lost (moved on under us), or answered at once by a kept signal. */
    record Awaited(boolean blocked, WaitStore.KeptSignal signal) {
        boolean lost() {
            return !blocked && signal == null;
        }
    }

    /**
     * {@link #block} for a sleep or a wait, with its row in {@code cyclium_waits} (its name, key and
     * due time) in the same transaction. A wait for a name first takes a signal kept for it: then the
     * episode does not leave — it stays running, the journal says the wait started and was resolved
     * by that signal, the lease stays held (not settled), and the run goes on with the payload. The
     * block's UPDATE holds the episode row first, as a signal's sender does, so a signal either was
     * kept before (and is taken here) or finds this wait's row after the commit.
     */
    Awaited await(String stateJson, int stateVersion, JsonObject detail, int turns, io.cyclium.keys.EpisodeRef ref,
            WaitSpec spec) {
        int cpNo = stepNo;
        int no = stepNo++;
        int resolvedNo = stepNo;
        WaitStore.KeptSignal[] taken = new WaitStore.KeptSignal[1];
        boolean blocked = rowThenJournal(() -> (spec.sleep() ? "sleep" : "wait") + " at step " + no, no, StepKind.WAIT_STARTED,
                true, null, null, () -> taken[0] == null, em -> {
            taken[0] = null;
            if (env.store().block(em, episodeId, turns) != 1) {
                return false;
            }
            env.store().checkpoint(em, episodeId, cpNo, BLOCKED_PHASE, stateVersion, stateJson);
            if (!env.store().journal(em, episodeId, no, StepKind.WAIT_STARTED, env.node(), detail, null, null, null)) {
                throw new Undo("step " + no + " of episode " + episodeId + " was journaled by another owner");
            }
            if (!spec.sleep()) {
                Optional<WaitStore.KeptSignal> kept = env.waits().takeSignal(em, WaitStore.EPISODE, episodeId, spec.name());
                if (kept.isPresent()) {
                    env.store().stayRunning(em, episodeId);
                    env.store().journal(em, episodeId, resolvedNo, StepKind.WAIT_RESOLVED, env.node(),
                            WaitSpec.signalDetail(spec.name(), kept.get()), null, null, null);
                    taken[0] = kept.get();
                    return true;
                }
            }
            env.waits().register(em, ref, spec.sleep() ? WaitStore.SLEEP : WaitStore.WAIT, spec.name(), spec.key(),
                    spec.wakeInMillis(), spec.wakeAt());
            return true;
        });
        if (taken[0] != null) {
            stepNo++;
            progressed(no, StepKind.WAIT_STARTED);
            progressed(resolvedNo, StepKind.WAIT_RESOLVED);
            return new Awaited(false, taken[0]);
        }
        if (blocked) {
            // committed: this node's due pass runs when it is due (any other node's sweep or pulse is the backstop)
            env.waits().alarm().wake(spec.dueIn(env.clock()));
            progressed(no, StepKind.WAIT_STARTED);
        }
        return new Awaited(blocked, null);
    }

    /**
     * The terminal status and the last journal row in one transaction, the row first (see
     * {@link #block}). The journal row is guarded too: a step another owner wrote means we are not
     * the owner any more, and the status change is undone.
     */
    boolean finish(EpisodeStatus status, int turns, String summary, String errorClass, JsonObject detail) {
        String kind = status == EpisodeStatus.DONE || status == EpisodeStatus.PARTIALLY_FAILED
                ? StepKind.EPISODE_COMPLETED : StepKind.EPISODE_FAILED;
        int no = stepNo++;
        boolean success = status != EpisodeStatus.FAILED;
        return rowThenJournal(() -> "finish " + status.wire() + " at step " + no, no, kind, success, success ? null : "episode failed",
                ending(status, errorClass), em -> {
            if (env.store().finish(em, episodeId, status, turns, summary, errorClass, null, checkpointsExist) == 0) {
                return false;
            }
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, null, null)) {
                throw new Undo("step " + no + " of episode " + episodeId + " was journaled by another owner");
            }
            return true;
        });
    }

    /**
     * A failure or a cancel: the status changed while the episode is still running, then journaled
     * whatever happened (the row says why this attempt ended) — the row first (see {@link #block}).
     */
    boolean end(EpisodeStatus status, int turns, String errorClass, String message, JsonObject detail) {
        int no = stepNo++;
        boolean success = status != EpisodeStatus.FAILED;
        return rowThenJournal(() -> "end " + status.wire() + " at step " + no, no, StepKind.EPISODE_FAILED, success,
                success ? null : "episode failed", ending(status, errorClass), em -> {
            int updated = env.store().finish(em, episodeId, status, turns, null, errorClass, message, checkpointsExist);
            env.store().journal(em, episodeId, no, StepKind.EPISODE_FAILED, env.node(), detail, errorClass, null, null);
            return updated == 1;
        });
    }

    /** The terminal event of this episode's workflow step with its status; null when it runs no step. */
    private EpisodeFinished ending(EpisodeStatus status, String errorClass) {
        EpisodeFinished e = stepEnding;
        return e == null ? null : new EpisodeFinished(episodeId, e.actorId(), e.expectationId(), status.wire(), errorClass,
                e.workflowInstanceId(), e.workflowStepId());
    }

    /**
     * Runs a terminal write and, when the write went through, settles the lease in the same
     * transaction (lock order: episode row, journal, claim — the drain's order too). A lease that
     * moved on (another node took the key at a higher fence) undoes the whole write: that node owns
     * the episode now. A deadlock victim is run again (see {@link #inTransaction}).
     *
     * <p>{@code ending} (a workflow step's episode ending): last in the same transaction, the step's
     * outcome is recorded and its instance advanced — the next steps' episodes stored with their
     * leases — after the lease (lock order: episode row, journal, claim, instance, steps). What that
     * does outside the database runs once the transaction has committed; a run that did not commit
     * leaves nothing behind (each run starts afresh, see {@link StepAdvancement}).
     */
    private boolean rowThenJournal(Supplier<String> what, int no, String kind, boolean success, String failDetail,
            EpisodeFinished ending, Function<EntityManager, Boolean> work) {
        return rowThenJournal(what, no, kind, success, failDetail, ending, () -> true, work);
    }

    /**
     * {@link #rowThenJournal(Supplier, int, String, boolean, String, EpisodeFinished, Function)};
     * {@code settles}, asked after the work ran: whether the lease is settled with it (false: the
     * run goes on, a wait answered at once).
     */
    private boolean rowThenJournal(Supplier<String> what, int no, String kind, boolean success, String failDetail,
            EpisodeFinished ending, java.util.function.BooleanSupplier settles, Function<EntityManager, Boolean> work) {
        HeldClaim settling = claim;
        if (settling != null) {
            env.claims().settling(settling);
        }
        boolean[] settledHere = new boolean[1];
        boolean[] goesOn = new boolean[1];
        // read once: the runtime adds an episode before its task starts and removes it only after
        boolean releasing = env.heldSlots().holds(episodeId);
        List<Optional<Runnable>> advanced = new ArrayList<>(1);
        Reruns reruns = new Reruns();
        // the row, the journal, the lease and the slots: recorded once, run for real on a rerun
        Function<EntityManager, Boolean> writes = w -> {
            settledHere[0] = false;
            if (!work.apply(w)) {
                return false;
            }
            if (settling != null && settles.getAsBoolean()) {
                Optional<Boolean> settled = env.claims().settleIn(w, settling, success, failDetail);
                if (settled.isPresent() && !settled.get()) {
                    throw new Undo("its lease " + settling + " moved on");
                }
                settledHere[0] = settled.isPresent();
            }
            if (releasing && settles.getAsBoolean()) {
                // the run leaves (ends, or sleeps and waits elsewhere): its concurrency slots go with this commit
                env.heldSlots().releaseIn(w, episodeId);
            }
            return true;
        };
        // A step's terminal write reads its instance after these writes, so a shared batch runs it
        // for real: on PostgreSQL they go out first as one statement (OneStatementWrites), as the
        // batch sends a recorded work's. A count other than one rolls the transaction back (a
        // shared one: its other writes run again alone) and this write runs again with each
        // statement for real.
        boolean postgresql = env.store().vendor() == DatabaseVendor.POSTGRESQL;
        boolean[] oneStatement = {ending != null && postgresql};
        Function<EntityManager, Boolean> run = em -> {
            advanced.clear();
            if (reruns.mayHaveLanded(em) && env.store().journaledBy(em, episodeId, no, kind, env.node())) {
                // the earlier run committed (its answer was lost): its settlement stands as it
                // was, and so does its advancement (what it would have started after its commit
                // is left to recovery: the next steps' rows are stored, their first leases lapse)
                return true;
            }
            Optional<Boolean> sent = oneStatement[0] ? OneStatementWrites.send(em, writes) : Optional.empty();
            if (!(sent.isPresent() ? sent.get() : writes.apply(em))) {
                return false;
            }
            if (ending != null) {
                advanced.add(env.advancement().inTerminalWrite(em, ending));
            }
            reruns.ran(em);
            return true;
        };
        // A step's advancement holds its instance's row until the commit. On PostgreSQL it costs
        // two statements after the terminal write's one, and it shares the group commit's batch
        // like any terminal write: one transaction for many steps, where one each made every step
        // wait for a commit of its own. Elsewhere it still runs a dozen statements, which in a
        // shared batch would keep the single writer and every other write of the batch waiting
        // (another node's batch holding the same instance), so it takes a transaction of its own
        // on this task's thread. In a batch it names its instance, whose row it holds: a batch
        // runs such writes in the order of their instances, so two nodes' batches advancing the
        // same two instances never hold them in opposite orders (a deadlock, which PostgreSQL
        // breaks only after deadlock_timeout, then every write of both batches ran again alone).
        boolean alone = ending != null && !postgresql;
        String holds = ending == null ? null : ending.workflowInstanceId();
        try {
            boolean done;
            try {
                done = inTransaction(what, alone, holds, run);
            } catch (OneStatementWrites.Mismatch mismatch) {
                LOG.fine(() -> "Episode " + episodeId + ": " + mismatch.getMessage() + "; its terminal write runs again statement by statement");
                oneStatement[0] = false;
                done = inTransaction(what, alone, holds, run);
            }
            claimSettled = done && settledHere[0];
            goesOn[0] = done && !settles.getAsBoolean();
            if (done && releasing && !goesOn[0]) {
                env.heldSlots().released(episodeId);
            }
            if (done && !advanced.isEmpty() && advanced.get(0).isPresent()) {
                advancedInCommit = true;
                afterCommit(advanced.get(0).get());
            }
            return done;
        } catch (Undo undone) {
            LOG.info(() -> "Episode " + episodeId + ": " + undone.getMessage() + "; standing down");
            return false;
        } finally {
            if (settling != null) {
                if (goesOn[0]) {
                    env.claims().stillHeld(settling);
                }
                env.claims().settlingEnded(settling);
            }
        }
    }

    /**
     * Every write of the task: a transaction it may share with other tasks' writes (group commit),
     * run again — alone — when that transaction failed or the database picked it as a deadlock
     * victim (nothing of it was applied; its statements are guarded and re-read what they decide
     * on, and the work resets what it captured) instead of ending the episode as a crash.
     */
    private <T> T inTransaction(Supplier<String> what, Function<EntityManager, T> work) {
        return inTransaction(what, false, null, work);
    }

    /**
     * {@link #inTransaction}; {@code alone}: in a transaction of its own, never in a shared batch (a
     * deadlock victim still runs again); {@code holds}: the row the work holds while it runs (its
     * workflow instance), which orders it in a shared batch ({@link io.cyclium.store.Tx#inGroupTransaction(String, Function)}).
     */
    private <T> T inTransaction(Supplier<String> what, boolean alone, String holds, Function<EntityManager, T> work) {
        // tracing off: no span, and the description is never built
        TraceSpan span = trace == TraceSpan.NONE ? TraceSpan.NONE : trace.child("cyclium journal write", SpanAttributes.WRITE, what.get());
        Supplier<T> once = alone
                ? () -> io.cyclium.store.DeadlockRetry.inNewTransaction(env.tx(), work, attempt -> LOG.fine(() ->
                        "Episode " + episodeId + ": its terminal write was a deadlock victim (attempt " + attempt + ")"))
                : () -> env.tx().inGroupTransaction(holds, work);
        try {
            if (retry == null) {
                return once.get();
            }
            return retry.run(what, once::get);
        } catch (RuntimeException | Error e) {
            span.failed(e.getClass().getSimpleName());
            throw e;
        } finally {
            span.close();
        }
    }

    /** The span of the current step (or the run's between steps); NONE when tracing is off. */
    TraceSpan trace() {
        return trace;
    }

    /** The span this task's writes are children of from now on (the current step's, or the run's). */
    void tracedUnder(TraceSpan span) {
        trace = span;
    }
}
