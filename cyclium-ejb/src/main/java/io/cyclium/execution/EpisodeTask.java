package io.cyclium.execution;

import io.cyclium.telemetry.SpanAttributes;
import io.cyclium.store.Jsons;
import io.cyclium.episode.Budget;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.keys.EpisodeClaimKey;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.claims.HeldClaim;
import io.cyclium.output.OutputProposal;
import io.cyclium.telemetry.TraceSpan;
import jakarta.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one episode on this node: take the lease, restore or init the state, then loop
 * decide → execute → journal until the strategy finishes, blocks, or something outside stops it.
 *
 * <p>Invariants:
 * <ul>
 * <li>Before every step: lease lost → abort without touching the row (the new owner drives it);
 *     drain → stop and leave the (already stamped) row to recovery; cancel → canceled; budget → failed.</li>
 * <li>Findings and outputs happen only after a fence check at converge: a task that lost its lease
 *     (including A → B → A) delivers nothing.</li>
 * <li>Every terminal status change is guarded on {@code running} and fires {@link EpisodeFinished}
 *     once, after commit — on the {@code done} path too.</li>
 * <li>A workflow step's terminal write also records the step and advances its instance, in the same
 *     transaction ({@link StepAdvancement}); its event then says so, and the engine skips it.</li>
 * </ul>
 */
public final class EpisodeTask implements Runnable {

    private static final Logger LOG = Logger.getLogger(EpisodeTask.class.getName());

    /** How a run ended, for the claim and the actor's slot. */
    public enum Outcome { FINISHED, FAILED, BLOCKED, CLAIM_LOST, STOPPED, BUSY, NOT_RUNNABLE, GAVE_UP }

    private final TaskEnvironment env;
    private final String episodeId;
    private final RunSnapshot given;
    private final boolean resume;
    private final HeldClaim handedClaim;
    private final RunControl control;
    private final Consumer<Outcome> onExit;

    private EpisodeWrites writes;
    private int turns;
    // what idempotency keys count from: the checkpoint the state derives from, and the turn it was taken at
    private int checkpointBase = -1;
    private int turnsAtCheckpoint;
    private Outcome outcome = Outcome.NOT_RUNNABLE;
    // when this run took the episode up (its duration metric counts from here: a run resumed after
    // an approval or on another node is timed from its resume, not from the episode's first start)
    private Instant runStartedAt;
    // this run's span (NONE when tracing is off) and what its outcome attribute says
    private TraceSpan run = TraceSpan.NONE;
    private String terminalStatus;
    private String terminalError;

    /**
     * @param given       the row as just inserted by this node, or null to read it
     * @param resume      continue from the latest checkpoint (recovery, approval, wait)
     * @param handedClaim a lease the caller already holds for this episode (recovery hands its own
     *                    over so the restarted task is not refused by it), or null to acquire
     */
    public EpisodeTask(TaskEnvironment env, String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim,
            RunControl control, Consumer<Outcome> onExit) {
        this.env = env;
        this.episodeId = episodeId;
        this.given = given;
        this.resume = resume;
        this.handedClaim = handedClaim;
        this.control = control;
        this.onExit = onExit;
    }

    @Override
    public void run() {
        control.thread(Thread.currentThread());
        try {
            outcome = execute();
        } catch (RuntimeException | Error e) {
            LOG.log(Level.SEVERE, "Episode " + episodeId + " task ended abnormally", e);
            outcome = Outcome.FAILED;
            // A lease left in the node's held set would be renewed forever and block recovery:
            // stop renewing it, so it lapses and the sweep can take the episode.
            HeldClaim held = control.claim();
            if (held != null) {
                env.claims().forget(held);
            }
        } finally {
            control.thread(null);
            onExit.accept(outcome);
        }
    }

    public Outcome outcome() {
        return outcome;
    }

    private Outcome execute() {
        RunSnapshot s = given != null ? given
                : env.tx().inNewTransaction(em -> env.store().snapshot(em, episodeId, null)).orElse(null);
        if (s == null || !EpisodeStatus.RUNNING.wire().equals(s.status())) {
            return Outcome.NOT_RUNNABLE;
        }
        writes = new EpisodeWrites(env, episodeId, s.nextStepNo());
        // only when steps advance in their terminal write: otherwise that write is an ordinary one
        // (in the shared batch), not a transaction of its own that advances nothing
        if (env.advancement().advances() && s.workflowInstanceId() != null && s.workflowStepId() != null) {
            writes.forWorkflowStep(s.ref().actorId(), s.ref().expectationId(), s.workflowInstanceId(), s.workflowStepId());
        }
        if (!env.tracing().on()) {
            return execute(s);
        }
        // one span per run, under the span that stored the episode (an event's, a workflow
        // instance's, a trigger's), on whichever node runs it: a resumed or recovered run joins the
        // same trace as the first (a run on a node that died never ended its span, so never exported it)
        run = env.tracing().start("cyclium episode " + s.ref().actorId() + "/" + s.ref().expectationId(), s.traceParent(),
                SpanAttributes.ACTOR, s.ref().actorId(), SpanAttributes.EXPECTATION, s.ref().expectationId(),
                SpanAttributes.EPISODE_ID, episodeId, SpanAttributes.ATTEMPT, String.valueOf(s.attempts()),
                SpanAttributes.NODE, env.node(), SpanAttributes.TRIGGER, s.trigger().type(),
                SpanAttributes.RESUMED, String.valueOf(resume),
                SpanAttributes.WORKFLOW_INSTANCE_ID, s.workflowInstanceId(), SpanAttributes.WORKFLOW_STEP, s.workflowStepId());
        writes.tracedUnder(run);
        Outcome ended = Outcome.FAILED;
        try {
            ended = execute(s);
            return ended;
        } finally {
            run.set(SpanAttributes.OUTCOME, terminalStatus != null ? terminalStatus : ended.name().toLowerCase(Locale.ROOT));
            if (ended == Outcome.FAILED) {
                run.failed(terminalError != null ? terminalError : "failed");
            }
            run.close();
        }
    }

    private Outcome execute(RunSnapshot s) {
        Optional<ExpectationDefinition> exp = env.strategies().expectation(s.ref().actorId(), s.ref().expectationId());
        String claimKey = EpisodeClaimKey.of(s.ref().dedupeKey(), episodeId);
        HeldClaim claim = handedClaim;
        if (claim == null) {
            Optional<HeldClaim> acquired = env.claims().acquire(claimKey, "episode");
            if (acquired.isEmpty()) {
                // Another node holds a live lease on this episode: it is running there, or a sweep is
                // taking it. Stop saying it waits here (markQueued said so): vouched for by this
                // node's heartbeat it could never go stale, and if the holder does not run it
                // either, nobody would.
                env.telemetry().count("episode_busy", "actor", s.ref().actorId());
                env.tx().inNewTransaction(em -> env.store().unmarkQueued(em, episodeId, env.node()));
                return Outcome.BUSY;
            }
            claim = acquired.get();
        }
        control.claim(claim);
        writes.holding(claim, s.checkpoint().isPresent());
        HeldClaim running = claim;
        writes.retrying(new WriteRetry(episodeId, env.writePatience(), () -> control.stopRequested() || running.lost(),
                () -> env.telemetry().count("episode_write_retry", "actor", s.ref().actorId())));
        if (given != null) {
            writes.startedFresh();
        }
        if (exp.isEmpty()) {
            fail(s, "unknown_expectation", "No deployed actor declares " + s.ref().actorId() + "/" + s.ref().expectationId());
            if (!writes.claimSettled()) {
                env.claims().fail(claim, "unknown_expectation");
            }
            return Outcome.FAILED;
        }
        Outcome result;
        try {
            if (given == null && env.tx().inNewTransaction(em -> env.store().claimRun(em, episodeId, env.node())) == 0) {
                env.claims().complete(claim);
                return Outcome.NOT_RUNNABLE;
            }
            runStartedAt = env.clock().instant();
            env.telemetry().count("episode_started", "actor", s.ref().actorId(), "expectation", s.ref().expectationId(),
                    "resumed", String.valueOf(resume));
            result = loop(s, exp.get(), claim);
        } catch (WriteRetry.GaveUp g) {
            result = gaveUp(s, g);
        } catch (Exception e) {
            result = crash(s, e);
        }
        if (writes.claimSettled()) {
            // settled with the terminal write, in its transaction
            return result;
        }
        switch (result) {
            case FINISHED, BLOCKED -> env.claims().complete(claim);
            case FAILED -> env.claims().fail(claim, "episode failed");
            default -> env.claims().forget(claim);
        }
        return result;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Outcome loop(RunSnapshot s, ExpectationDefinition exp, HeldClaim claim) throws Exception {
        Strategy<Object> strategy = (Strategy) env.strategies().strategy(exp);
        Budget budget = s.budget() != null ? s.budget() : exp.budget();
        Instant startedAt = env.clock().instant();
        List<OutputProposal> proposed = new ArrayList<>();
        Object state;
        if (resume && s.checkpoint().isPresent()) {
            RunSnapshot.SavedCheckpoint cp = s.checkpoint().get();
            try {
                state = CheckpointCodec.read(strategy, cp);
                checkpointBase = cp.number();
            } catch (RuntimeException e) {
                // Never fall back to init silently: that would replay side effects the checkpoint covered.
                return fail(s, "checkpoint_migration_failed", e.getMessage());
            }
        } else {
            state = strategy.init(s.trigger(), context(s, budget, startedAt));
        }
        if (resume && !writes.resumed(s.attempts(), s.checkpoint().map(RunSnapshot.SavedCheckpoint::number), claim)) {
            return Outcome.CLAIM_LOST;
        }
        if (resume) {
            // Proposals of earlier runs live in the journal, not in the state: a strategy resumed
            // from a checkpoint taken after it proposed will not propose again, and they would be lost.
            env.tx().inNewTransaction(em -> env.store().journalDetails(em, episodeId, StepKind.OUTPUT_PROPOSED))
                    .forEach(d -> ProposalJournal.proposal(d).ifPresent(p -> addProposal(proposed, p)));
        }
        if (s.resolution().isPresent()) {
            Optional<StepResult> resolved = Resolutions.resultOf(s.resolution().get());
            if (resolved.isEmpty()) {
                return fail(s, "plan_tampered", "The stored plan does not match the approved plan hash "
                        + Resolutions.approvedHash(s.resolution().get()));
            }
            state = strategy.onResult(state, resolved.get(), context(s, budget, startedAt));
        }
        boolean firstTurn = true;
        while (true) {
            if (claim.lost()) {
                LOG.info(() -> "Episode " + episodeId + " lost its lease " + claim + ": stopping without side effects");
                env.telemetry().count("episode_claim_lost", "actor", s.ref().actorId());
                return Outcome.CLAIM_LOST;
            }
            if (control.stopRequested()) {
                return Outcome.STOPPED;
            }
            if (control.cancelRequested() || (firstTurn && s.cancelRequested())) {
                return cancel(s);
            }
            firstTurn = false;
            Optional<String> exhausted = budget.exhausted(turns, Duration.between(startedAt, env.clock().instant()));
            if (exhausted.isPresent()) {
                return fail(s, "budget_exceeded", exhausted.get());
            }
            turns++;
            StepContext ctx = context(s, budget, startedAt);
            Step step = strategy.decide(state, ctx);
            if (step == null) {
                return fail(s, "crash", strategy.getClass().getName() + ".decide returned null");
            }
            TraceSpan stepSpan = run == TraceSpan.NONE ? TraceSpan.NONE
                    : run.child("cyclium " + StepSpans.name(step), SpanAttributes.TURN, String.valueOf(turns));
            writes.tracedUnder(stepSpan);
            try {
                if (step instanceof Step.Observe o) {
                    Optional<StepResult> observed = ObserveStep.run(o, ctx, writes);
                    if (observed.isEmpty()) {
                        return Outcome.CLAIM_LOST;
                    }
                    state = strategy.onResult(state, observed.get(), ctx);
                } else if (step instanceof Step.Checkpoint c) {
                    int number = writes.checkpoint(CheckpointCodec.write(state), strategy.stateVersion(), c.phase(),
                            StepKind.CHECKPOINT, Jsons.object().add("phase", c.phase()).build());
                    if (number < 0) {
                        return Outcome.CLAIM_LOST;
                    }
                    checkpointBase = number;
                    turnsAtCheckpoint = turns;
                    state = strategy.onResult(state, StepResult.checkpointed(c.phase()), ctx);
                } else if (step instanceof Step.ProposeOutput p) {
                    addProposal(proposed, p.proposal());
                    if (!writes.journal(StepKind.OUTPUT_PROPOSED, ProposalJournal.detail(p.proposal()), null, null, null)) {
                        return Outcome.CLAIM_LOST;
                    }
                    state = strategy.onResult(state, StepResult.outputProposed(p.proposal().type()), ctx);
                } else if (step instanceof Step.RequestApproval a) {
                    String hash = CanonicalJson.hash(a.plan());
                    return block(s, strategy, state, StepKind.APPROVAL_REQUESTED,
                            Jsons.object().add("plan", a.plan()).add("planHash", hash).build());
                } else if (step instanceof Step.Wait || step instanceof Step.Sleep) {
                    WaitSpec spec = step instanceof Step.Wait w ? WaitSpec.of(w) : WaitSpec.of((Step.Sleep) step);
                    EpisodeWrites.Awaited awaited = writes.await(CheckpointCodec.write(state), strategy.stateVersion(),
                            spec.startedDetail(), turns, s.ref(), spec);
                    if (awaited.lost()) {
                        return Outcome.CLAIM_LOST;
                    }
                    if (awaited.blocked()) {
                        env.telemetry().count("episode_blocked", "actor", s.ref().actorId(), "reason",
                                spec.sleep() ? "sleep" : StepKind.WAIT_STARTED);
                        return Outcome.BLOCKED;
                    }
                    // a signal kept for this wait answered it at once: the run goes on from the
                    // block's checkpoint, as a resumed run would
                    env.telemetry().count("signal_delivered", "actor", s.ref().actorId(), "how", "kept");
                    checkpointBase = writes.nextStepNo() - 2;
                    turnsAtCheckpoint = turns;
                    state = strategy.onResult(state, StepResult.waitResolved(spec.name(), awaited.signal().payload()), ctx);
                } else if (step instanceof Step.Done d) {
                    return finish(s, EpisodeStatus.DONE, d.summary(), null, Jsons.object()
                            .add("summary", d.summary() == null ? "" : d.summary()).build());
                } else {
                    Convergence conv = strategy.converge(state, ctx);
                    return converge(s, exp, claim, conv == null ? Convergence.of(null) : conv, proposed);
                }
            } finally {
                stepSpan.close();
                writes.tracedUnder(run);
            }
        }
    }

    /** Adds a proposal unless an equal one is there (a resumed strategy proposing again what the journal kept). */
    private static void addProposal(List<OutputProposal> proposed, OutputProposal p) {
        if (!proposed.contains(p)) {
            proposed.add(p);
        }
    }

    private Outcome converge(RunSnapshot s, ExpectationDefinition exp, HeldClaim claim, Convergence conv,
            List<OutputProposal> proposed) {
        Optional<ConvergeStep.Ending> ending = new ConvergeStep(env, writes, episodeId).apply(s, exp, claim, conv, proposed,
                resume || s.attempts() > 1);
        if (ending.isEmpty()) {
            return Outcome.CLAIM_LOST;
        }
        ConvergeStep.Ending e = ending.get();
        return finish(s, e.status(), e.summary(), e.errorClass(), e.detail());
    }

    private Outcome finish(RunSnapshot s, EpisodeStatus status, String summary, String errorClass, JsonObject detail) {
        if (!writes.finish(status, turns, summary, errorClass, detail)) {
            // Canceled or recovered under us: whoever moved it fires its own terminal event.
            return Outcome.CLAIM_LOST;
        }
        terminal(s, status, errorClass);
        return status == EpisodeStatus.FAILED ? Outcome.FAILED : Outcome.FINISHED;
    }

    private Outcome fail(RunSnapshot s, String errorClass, String message) {
        JsonObject detail = Jsons.object().add("errorClass", errorClass)
                .add("message", message == null ? "" : message).build();
        if (writes.end(EpisodeStatus.FAILED, turns, errorClass, message, detail)) {
            terminal(s, EpisodeStatus.FAILED, errorClass);
        }
        return Outcome.FAILED;
    }

    private Outcome crash(RunSnapshot s, Exception e) {
        LOG.log(Level.WARNING, "Episode " + episodeId + " (" + s.ref().actorId() + "/" + s.ref().expectationId()
                + ") crashed in its strategy", e);
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        String text = e + "\n" + trace;
        try {
            return fail(s, "crash", text.length() > 4000 ? text.substring(0, 4000) : text);
        } catch (WriteRetry.GaveUp g) {
            return gaveUp(s, g);
        }
    }

    /**
     * The database could not take this run's writes within the patience: the episode is left as it
     * is — running, its lease released from this node's renewals so it lapses — and recovery
     * decides under the episode's policy (one that ran no step is restarted whatever its policy).
     * Nothing is failed here: failing would have been one more write into the same outage. A row
     * still marked queued on this node stops being vouched for at the heartbeat's next queue audit.
     */
    private Outcome gaveUp(RunSnapshot s, WriteRetry.GaveUp g) {
        LOG.log(Level.WARNING, g.getMessage(), g.getCause());
        env.telemetry().count("episode_gave_up", "actor", s.ref().actorId());
        return Outcome.GAVE_UP;
    }

    private Outcome cancel(RunSnapshot s) {
        if (writes.end(EpisodeStatus.CANCELED, turns, "canceled", null,
                Jsons.object().add("errorClass", "canceled").build())) {
            terminal(s, EpisodeStatus.CANCELED, "canceled");
        }
        return Outcome.FINISHED;
    }

    private Outcome block(RunSnapshot s, Strategy<Object> strategy, Object state, String kind, JsonObject detail) {
        boolean blocked = writes.block(CheckpointCodec.write(state), strategy.stateVersion(), kind, detail, turns);
        env.telemetry().count("episode_blocked", "actor", s.ref().actorId(), "reason", kind);
        return blocked ? Outcome.BLOCKED : Outcome.CLAIM_LOST;
    }

    private void terminal(RunSnapshot s, EpisodeStatus status, String errorClass) {
        terminalStatus = status.wire();
        terminalError = errorClass;
        env.telemetry().count("episode_finished", "actor", s.ref().actorId(), "status", status.wire());
        if (runStartedAt != null) {
            env.telemetry().time("episode_duration", Duration.between(runStartedAt, env.clock().instant()), "actor",
                    s.ref().actorId(), "expectation", s.ref().expectationId(), "status", status.wire());
        }
        try {
            EpisodeFinished event = new EpisodeFinished(episodeId, s.ref().actorId(), s.ref().expectationId(), status.wire(),
                    errorClass, s.workflowInstanceId(), s.workflowStepId());
            env.finished().accept(writes.advancedInCommit() ? event.advanced() : event);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Episode " + episodeId + ": a listener of its terminal event failed", e);
        }
    }

    private StepContext context(RunSnapshot s, Budget budget, Instant startedAt) {
        return new StepContext(episodeId, s.ref().actorId(), s.ref().expectationId(), writes.nextStepNo(), turns, budget,
                s.trigger(), s.ref().sourceEnv(), env.clock().instant(), resume, checkpointBase, turns - turnsAtCheckpoint);
    }
}
