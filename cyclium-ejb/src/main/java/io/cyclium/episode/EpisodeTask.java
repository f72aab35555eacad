package io.cyclium.episode;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.trigger.CanonicalJson;
import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.finding.FindingAction;
import io.cyclium.output.OutputProposal;
import io.cyclium.store.JsonText;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * </ul>
 */
public final class EpisodeTask implements Runnable {

    private static final Logger LOG = Logger.getLogger(EpisodeTask.class.getName());
    static final String BLOCKED_PHASE = "__blocked__";

    /** Everything a task uses, so the same loop runs in the container and in tests. */
    public record Environment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims,
            ConvergeEffects effects, Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry) {
    }

    /** How a run ended, for the claim and the actor's slot. */
    public enum Outcome { FINISHED, FAILED, BLOCKED, CLAIM_LOST, STOPPED, BUSY, NOT_RUNNABLE }

    private final Environment env;
    private final String episodeId;
    private final RunSnapshot given;
    private final boolean resume;
    private final HeldClaim handedClaim;
    private final RunControl control;
    private final Consumer<Outcome> onExit;

    private int stepNo;
    private int turns;
    private Outcome outcome = Outcome.NOT_RUNNABLE;

    /**
     * @param given       the row as just inserted by this node, or null to read it
     * @param resume      continue from the latest checkpoint (recovery, approval, wait)
     * @param handedClaim a lease the caller already holds for this episode (recovery hands its own
     *                    over so the restarted task is not refused by it), or null to acquire
     */
    public EpisodeTask(Environment env, String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim,
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
        stepNo = s.nextStepNo();
        Optional<ExpectationDefinition> exp = env.strategies().expectation(s.ref().actorId(), s.ref().expectationId());
        String claimKey = EpisodeClaimKey.of(s.ref().dedupeKey(), episodeId);
        HeldClaim claim = handedClaim;
        if (claim == null) {
            Optional<HeldClaim> acquired = env.claims().acquire(claimKey, "episode");
            if (acquired.isEmpty()) {
                // Another node holds a live lease on this episode: it is running there.
                env.telemetry().count("episode_busy", "actor", s.ref().actorId());
                return Outcome.BUSY;
            }
            claim = acquired.get();
        }
        control.claim(claim);
        if (exp.isEmpty()) {
            fail(s, "unknown_expectation", "No deployed actor declares " + s.ref().actorId() + "/" + s.ref().expectationId());
            env.claims().fail(claim, "unknown_expectation");
            return Outcome.FAILED;
        }
        Outcome result;
        try {
            if (given == null && env.tx().inNewTransaction(em -> env.store().claimRun(em, episodeId, env.node())) == 0) {
                env.claims().complete(claim);
                return Outcome.NOT_RUNNABLE;
            }
            result = loop(s, exp.get(), claim);
        } catch (Exception e) {
            result = crash(s, e);
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
                state = restore(strategy, cp);
            } catch (RuntimeException e) {
                // Never fall back to init silently: that would replay side effects the checkpoint covered.
                return fail(s, "checkpoint_migration_failed", e.getMessage());
            }
        } else {
            state = strategy.init(s.trigger(), context(s, budget, startedAt));
        }
        if (resume) {
            JsonObject marker = Json.createObjectBuilder()
                    .add("event", "resumed")
                    .add("attempt", s.attempts())
                    .add("fromCheckpoint", s.checkpoint().map(c -> (JsonValue) Json.createValue(c.number())).orElse(JsonValue.NULL))
                    // the lease this run holds: the console's timeline shows who took over, at which fence
                    .add("fence", claim.passthrough() ? JsonValue.NULL : Json.createValue(claim.fence()))
                    .build();
            if (!journal(StepKind.RESUMED, marker, null, null, null)) {
                return Outcome.CLAIM_LOST;
            }
        }
        if (s.resolution().isPresent()) {
            RunSnapshot.Resolution r = s.resolution().get();
            if (r.kind().equals(StepKind.APPROVAL_RESOLVED)) {
                JsonObject plan = r.requested().getJsonObject("plan");
                String recorded = r.requested().getString("planHash", "");
                String approved = r.resolved().getString("planHash", "");
                // Re-hash the plan as it is stored now: a journal row edited after approval no
                // longer matches the hash the approver named, and the episode refuses to run it.
                if (plan == null || !CanonicalJson.hash(plan).equals(recorded) || !recorded.equals(approved)) {
                    return fail(s, "plan_tampered", "The stored plan does not match the approved plan hash " + approved);
                }
                state = strategy.onResult(state, StepResult.approved(plan), context(s, budget, startedAt));
            } else {
                state = strategy.onResult(state, StepResult.waitResolved(r.requested().getString("reference", ""),
                        r.resolved().get("value")), context(s, budget, startedAt));
            }
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
            if (turns >= budget.maxSteps()) {
                return fail(s, "budget_exceeded", "step budget of " + budget.maxSteps() + " used up");
            }
            Duration elapsed = Duration.between(startedAt, env.clock().instant());
            if (elapsed.compareTo(budget.maxWall()) > 0) {
                return fail(s, "budget_exceeded", "wall time budget of " + budget.maxWall().toMillis() + " ms exceeded after "
                        + elapsed.toMillis() + " ms");
            }
            turns++;
            StepContext ctx = context(s, budget, startedAt);
            Step step = strategy.decide(state, ctx);
            if (step == null) {
                return fail(s, "crash", strategy.getClass().getName() + ".decide returned null");
            }
            if (step instanceof Step.Observe o) {
                long t0 = System.nanoTime();
                StepResult result;
                try {
                    JsonValue value = o.observation().observe(ctx);
                    result = StepResult.observed(o.name(), value);
                    if (!journal(StepKind.OBSERVATION, Json.createObjectBuilder().add("name", o.name())
                            .add("value", value == null ? JsonValue.NULL : value).build(), null, null, millisSince(t0))) {
                        return Outcome.CLAIM_LOST;
                    }
                } catch (Exception e) {
                    result = StepResult.observationFailed(o.name(), String.valueOf(e.getMessage()));
                    if (!journal(StepKind.OBSERVATION, Json.createObjectBuilder().add("name", o.name())
                            .add("error", String.valueOf(e)).build(), "observation_failed", null, millisSince(t0))) {
                        return Outcome.CLAIM_LOST;
                    }
                }
                state = strategy.onResult(state, result, ctx);
            } else if (step instanceof Step.Checkpoint c) {
                if (!checkpoint(strategy, state, c.phase(), StepKind.CHECKPOINT,
                        Json.createObjectBuilder().add("phase", c.phase()).build())) {
                    return Outcome.CLAIM_LOST;
                }
                state = strategy.onResult(state, StepResult.checkpointed(c.phase()), ctx);
            } else if (step instanceof Step.ProposeOutput p) {
                proposed.add(p.proposal());
                if (!journal(StepKind.OUTPUT_PROPOSED, Json.createObjectBuilder().add("type", p.proposal().type())
                        .add("key", String.valueOf(p.proposal().key())).build(), null, null, null)) {
                    return Outcome.CLAIM_LOST;
                }
                state = strategy.onResult(state, StepResult.outputProposed(p.proposal().type()), ctx);
            } else if (step instanceof Step.RequestApproval a) {
                String hash = CanonicalJson.hash(a.plan());
                return block(s, strategy, state, StepKind.APPROVAL_REQUESTED,
                        Json.createObjectBuilder().add("plan", a.plan()).add("planHash", hash).build());
            } else if (step instanceof Step.Wait w) {
                return block(s, strategy, state, StepKind.WAIT_STARTED,
                        Json.createObjectBuilder().add("reference", w.reference()).build());
            } else if (step instanceof Step.Done d) {
                return finish(s, EpisodeStatus.DONE, d.summary(), null, Json.createObjectBuilder()
                        .add("summary", d.summary() == null ? "" : d.summary()).build());
            } else {
                Convergence conv = strategy.converge(state, ctx);
                return converge(s, exp, claim, conv == null ? Convergence.of(null) : conv, proposed);
            }
        }
    }

    private Outcome converge(RunSnapshot s, ExpectationDefinition exp, HeldClaim claim, Convergence conv,
            List<OutputProposal> proposed) {
        // The fence check: a lease taken over since we acquired it (even by us again) means another
        // run owns the effects now. Nothing below may happen twice.
        if (!env.claims().stillOwns(claim)) {
            LOG.info(() -> "Episode " + episodeId + " no longer owns " + claim + " at converge: delivering nothing");
            env.telemetry().count("episode_claim_lost", "actor", s.ref().actorId());
            return Outcome.CLAIM_LOST;
        }
        int findingFailures = 0;
        for (FindingAction action : conv.findings()) {
            ConvergeEffects.Effect effect;
            try {
                effect = env.effects().applyFinding(action, s.ref(), exp.findingTtl());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Episode " + episodeId + ": finding " + action.findingKey() + " failed", e);
                effect = new ConvergeEffects.Effect(false, null, action.findingKey(),
                        Json.createObjectBuilder().add("error", String.valueOf(e)).build());
            }
            if (!effect.ok()) {
                findingFailures++;
            }
            if (effect.journalKind() != null) {
                journal(effect.journalKind(), effect.detail(), effect.ok() ? null : "finding_failed", null, null);
            }
        }
        List<OutputProposal> outputs = new ArrayList<>(proposed);
        outputs.addAll(conv.outputs());
        int outputFailures = 0;
        for (OutputProposal p : outputs) {
            ConvergeEffects.Effect effect;
            try {
                effect = env.effects().deliver(p, s.ref());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Episode " + episodeId + ": output " + p.type() + " failed", e);
                effect = new ConvergeEffects.Effect(false, StepKind.OUTPUT_FAILED, null,
                        Json.createObjectBuilder().add("type", p.type()).add("error", String.valueOf(e)).build());
            }
            if (!effect.ok()) {
                outputFailures++;
            }
            if (effect.journalKind() != null) {
                journal(effect.journalKind(), effect.detail(), effect.ok() ? null : "output_failed", effect.key(), null);
            }
        }
        EpisodeStatus status;
        String errorClass = null;
        if (!outputs.isEmpty() && outputFailures == outputs.size()) {
            status = EpisodeStatus.FAILED;
            errorClass = "all_outputs_failed";
        } else if (outputFailures > 0 || findingFailures > 0) {
            status = EpisodeStatus.PARTIALLY_FAILED;
            errorClass = outputFailures > 0 ? "some_outputs_failed" : "finding_failed";
        } else {
            status = EpisodeStatus.DONE;
        }
        JsonObject detail = Json.createObjectBuilder()
                .add("summary", conv.summary() == null ? "" : conv.summary())
                .add("findings", conv.findings().size())
                .add("outputs", outputs.size())
                .add("outputFailures", outputFailures)
                .add("findingFailures", findingFailures)
                .build();
        return finish(s, status, conv.summary(), errorClass, detail);
    }

    private Outcome finish(RunSnapshot s, EpisodeStatus status, String summary, String errorClass, JsonObject detail) {
        String kind = status == EpisodeStatus.DONE || status == EpisodeStatus.PARTIALLY_FAILED
                ? StepKind.EPISODE_COMPLETED : StepKind.EPISODE_FAILED;
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, null, null)) {
                return 0;
            }
            return env.store().finish(em, episodeId, status, turns, summary, errorClass, null);
        });
        if (updated == 0) {
            // Canceled or recovered under us: whoever moved it fires its own terminal event.
            return Outcome.CLAIM_LOST;
        }
        terminal(s, status, errorClass);
        return status == EpisodeStatus.FAILED ? Outcome.FAILED : Outcome.FINISHED;
    }

    private Outcome fail(RunSnapshot s, String errorClass, String message) {
        int no = stepNo++;
        JsonObject detail = Json.createObjectBuilder().add("errorClass", errorClass)
                .add("message", message == null ? "" : message).build();
        int updated = env.tx().inNewTransaction(em -> {
            env.store().journal(em, episodeId, no, StepKind.EPISODE_FAILED, env.node(), detail, errorClass, null, null);
            return env.store().finish(em, episodeId, EpisodeStatus.FAILED, turns, null, errorClass, message);
        });
        if (updated == 1) {
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
        return fail(s, "crash", text.length() > 4000 ? text.substring(0, 4000) : text);
    }

    private Outcome cancel(RunSnapshot s) {
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            env.store().journal(em, episodeId, no, StepKind.EPISODE_FAILED, env.node(),
                    Json.createObjectBuilder().add("errorClass", "canceled").build(), "canceled", null, null);
            return env.store().finish(em, episodeId, EpisodeStatus.CANCELED, turns, null, "canceled", null);
        });
        if (updated == 1) {
            terminal(s, EpisodeStatus.CANCELED, "canceled");
        }
        return Outcome.FINISHED;
    }

    private Outcome block(RunSnapshot s, Strategy<Object> strategy, Object state, String kind, JsonObject detail) {
        String stateJson = JsonText.jsonb().toJson(state);
        int cpNo = stepNo; // checkpoint numbers only need to grow; reuse the step number
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            env.store().checkpoint(em, episodeId, cpNo, BLOCKED_PHASE, strategy.stateVersion(), stateJson);
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                return 0;
            }
            return env.store().block(em, episodeId, turns);
        });
        env.telemetry().count("episode_blocked", "actor", s.ref().actorId(), "reason", kind);
        return updated == 1 ? Outcome.BLOCKED : Outcome.CLAIM_LOST;
    }

    private boolean checkpoint(Strategy<Object> strategy, Object state, String phase, String kind, JsonObject detail) {
        String stateJson = JsonText.jsonb().toJson(state);
        int no = stepNo++;
        return env.tx().inNewTransaction(em -> {
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                return false;
            }
            env.store().checkpoint(em, episodeId, no, phase, strategy.stateVersion(), stateJson);
            return true;
        });
    }

    private Object restore(Strategy<Object> strategy, RunSnapshot.SavedCheckpoint cp) {
        JsonObject json = JsonText.parseObject(cp.state());
        int version = cp.schemaVersion();
        int target = strategy.stateVersion();
        if (version > target) {
            throw new CheckpointMigrationException("checkpoint " + cp.number() + " has state version " + version
                    + ", newer than " + strategy.getClass().getName() + " understands (" + target + ")");
        }
        while (version < target) {
            json = strategy.migrate(version, json);
            version++;
        }
        return JsonText.jsonb().fromJson(json.toString(), strategy.stateType());
    }

    private boolean journal(String kind, JsonObject detail, String errorClass, String sideEffectKey, Long costMs) {
        int no = stepNo++;
        boolean written = env.tx().inNewTransaction(
                em -> env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, sideEffectKey, costMs));
        if (!written) {
            LOG.info(() -> "Episode " + episodeId + ": step " + no + " was already journaled by another owner");
        }
        return written;
    }

    private void terminal(RunSnapshot s, EpisodeStatus status, String errorClass) {
        env.telemetry().count("episode_finished", "actor", s.ref().actorId(), "status", status.wire());
        try {
            env.finished().accept(new EpisodeFinished(episodeId, s.ref().actorId(), s.ref().expectationId(), status.wire(),
                    errorClass, s.workflowInstanceId(), s.workflowStepId()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Episode " + episodeId + ": a listener of its terminal event failed", e);
        }
    }

    private StepContext context(RunSnapshot s, Budget budget, Instant startedAt) {
        return new StepContext(episodeId, s.ref().actorId(), s.ref().expectationId(), stepNo, turns, budget, s.trigger(),
                s.ref().sourceEnv(), env.clock().instant(), resume);
    }

    private static Long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
