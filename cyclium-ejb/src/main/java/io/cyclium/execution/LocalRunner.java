package io.cyclium.execution;

import io.cyclium.store.Jsons;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import io.cyclium.keys.EpisodeClaimKey;

import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.StepKind;

import io.cyclium.claims.HeldClaim;
import io.cyclium.store.Tx;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.episode.DebouncedTriggerStore;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs episodes on this node's executor (the container's ManagedExecutorService) and knows which
 * ones are running here, so a cancel or a drain can reach them between steps.
 */
public final class LocalRunner implements EpisodeLauncher {

    private static final Logger LOG = Logger.getLogger(LocalRunner.class.getName());

    private final TaskEnvironment env;
    private final ExecutorService executor;
    private final TriggerRequestStore requests;
    private final DebouncedTriggerStore debounces;
    private final Map<String, RunControl> running = new ConcurrentHashMap<>();
    /** Leases taken with the episode row, until its task starts with them. */
    private final Map<String, HeldClaim> firstLeases = new ConcurrentHashMap<>();

    public LocalRunner(TaskEnvironment env, ExecutorService executor, TriggerRequestStore requests) {
        this(env, executor, requests, new DebouncedTriggerStore(requests.vendor()));
    }

    public LocalRunner(TaskEnvironment env, ExecutorService executor, TriggerRequestStore requests,
            DebouncedTriggerStore debounces) {
        this.env = env;
        this.executor = executor;
        this.requests = requests;
        this.debounces = debounces;
    }

    public TaskEnvironment environment() {
        return env;
    }

    /**
     * The row, and for an episode this node runs (at once or from its queue) its first lease, in
     * one transaction: the task then starts with the lease in hand, without a
     * transaction of its own to take it. A key whose lease row exists already (an earlier
     * episode's, archived since) is left to the task to take over as usual.
     */
    @Override
    public boolean insert(NewEpisode episode, Consumer<Boolean> settled) {
        return insert(episode, null, settled);
    }

    @Override
    public boolean insert(NewEpisode episode, InsertAdmission admission, Consumer<Boolean> settled) {
        // settled may run inside inCallerTransaction (our own transaction commits as it returns):
        // it reads whether the insert won from here, written before the commit.
        AtomicBoolean won = new AtomicBoolean();
        AtomicReference<HeldClaim> lease = new AtomicReference<>();
        // at once or from this node's queue: either way this node runs it, under this lease
        boolean runsHereNow = env.node().equals(episode.runNode());
        // Outside a caller's transaction this write is batched with others' (group commit), and a
        // failed batch runs it again on its own: a lease pending from the run rolled back goes first.
        Reruns reruns = new Reruns();
        return env.tx().inCallerTransaction(em -> {
            HeldClaim earlier = lease.getAndSet(null);
            boolean landed = false;
            try {
                landed = reruns.mayHaveLanded(em) && env.store().exists(em, episode.id());
            } finally {
                // The earlier run's lease is settled here unless it stands: left pending, a failing
                // read would leak it — renewed by the heartbeat for ever, never taken for an orphan.
                if (!landed && earlier != null) {
                    env.claims().firstClaimSettled(earlier, false);
                }
            }
            if (landed) {
                // The run before committed and only its answer was lost (a broken connection after
                // COMMIT): the row is ours, and so is the first lease taken with it, if it took one.
                // Taken for a duplicate here, it would never start and never be answered as stored.
                lease.set(earlier);
                won.set(true);
                admit(em, episode, admission, true);
                return true;
            }
            won.set(env.store().insert(em, episode));
            if (won.get() && runsHereNow) {
                env.claims().claimFirstIn(em, EpisodeClaimKey.of(episode.dedupeKey(), episode.id()), "episode")
                        .ifPresent(lease::set);
            }
            if (won.get()) {
                admit(em, episode, admission, false);
            }
            reruns.ran(em);
            return won.get();
        }, committed -> {
            boolean ours = committed && won.get();
            HeldClaim first = lease.get();
            if (first != null) {
                env.claims().firstClaimSettled(first, ours);
                if (ours) {
                    firstLeases.put(episode.id(), first);
                }
            }
            settled.accept(ours);
        });
    }

    /** The admission (none: nothing to take), and the row marked queued here when it says no. */
    private void admit(jakarta.persistence.EntityManager em, NewEpisode episode, InsertAdmission admission, boolean again) {
        if (admission != null && !admission.admit(em, episode.id(), again)) {
            env.store().markQueued(em, episode.id(), env.node());
        }
    }

    @Override
    public void markQueued(String episodeId) {
        env.tx().inNewTransaction(em -> env.store().markQueued(em, episodeId, env.node()));
    }

    /** The episode row and its trigger request in one transaction: both or neither. */
    @Override
    public boolean defer(NewEpisode episode, Consumer<Boolean> settled) {
        AtomicBoolean won = new AtomicBoolean();
        return env.tx().inCallerTransaction(em -> {
            won.set(false);
            if (!env.store().insert(em, episode)) {
                return false;
            }
            requests.insert(em, java.util.UUID.randomUUID().toString(), episode.id(), episode.actorId(),
                    episode.expectationId(), env.node(), episode.sourceStack(), episode.sourceEnv(), false);
            won.set(true);
            return true;
        }, committed -> settled.accept(committed && won.get()));
    }

    @Override
    public void debounce(DebouncedTrigger trigger) {
        env.tx().inCallerTransaction(em -> {
            debounces.push(em, trigger);
            return null;
        }, committed -> { });
    }

    @Override
    public void deferExisting(String episodeId, String actorId, String expectationId, boolean resume) {
        env.tx().run(em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, episodeId);
            requests.insert(em, java.util.UUID.randomUUID().toString(), episodeId, actorId, expectationId, env.node(),
                    e == null ? null : e.sourceStack, e == null ? null : e.sourceEnv, resume);
        });
    }

    @Override
    public void start(String episodeId, RunSnapshot given, boolean resume, HeldClaim handed, Runnable exited) {
        HeldClaim first = firstLeases.remove(episodeId);
        if (first != null && handed != null) {
            // a sweep took the key over while the episode waited for a slot (the first lease had
            // lapsed): the handed lease is the newer one, the first is lost
            env.claims().forget(first);
            first = null;
        }
        HeldClaim handedClaim = first != null ? first : handed;
        RunControl control = new RunControl(episodeId);
        // visible to the heartbeat's audit from now on, before the task thread even starts
        control.claim(handedClaim);
        if (running.putIfAbsent(episodeId, control) != null) {
            // Already running here (a duplicate resume): the slot reserved for it is given back,
            // and a lease handed with it too (the running task holds or takes its own).
            if (handedClaim != null) {
                releaseClaim(handedClaim, "episode " + episodeId + " is already running on " + env.node());
            }
            exited.run();
            return;
        }
        Consumer<EpisodeTask.Outcome> onExit = outcome -> {
            running.remove(episodeId, control);
            exited.run();
        };
        try {
            executor.submit(new EpisodeTask(env, episodeId, given, resume, handedClaim, control, onExit));
        } catch (RejectedExecutionException e) {
            running.remove(episodeId, control);
            if (first != null) {
                releaseClaim(first, "the executor refused episode " + episodeId);
            }
            LOG.log(Level.WARNING, "The executor refused episode " + episodeId + " (shutting down?); recovery will restart it", e);
            throw e;
        }
    }

    @Override
    public void releaseClaim(HeldClaim claim, String why) {
        LOG.info(() -> "Releasing " + claim + ": " + why);
        env.claims().fail(claim, why);
    }

    @Override
    public void cancelQueued(String episodeId) {
        dropFirstLease(episodeId, "episode " + episodeId + " was shed from the queue");
        Tx tx = env.tx();
        Optional<EpisodeEntity> row = tx.inNewTransaction(em -> {
            if (env.store().cancelIdle(em, episodeId, true) == 0) {
                return Optional.<EpisodeEntity>empty();
            }
            int no = env.store().nextStepNo(em, episodeId);
            env.store().journal(em, episodeId, no, StepKind.EPISODE_FAILED, env.node(),
                    Jsons.object().add("errorClass", "canceled").add("reason", "shed_oldest").build(),
                    "canceled", null, null);
            return env.store().find(em, episodeId);
        });
        row.ifPresent(e -> env.finished().accept(new EpisodeFinished(e.id, e.actorId, e.expectationId, "canceled",
                "canceled", e.workflowInstanceId, e.workflowStepId)));
    }

    /** Leases taken with their rows whose tasks have not started yet (waiting for a slot): in use. */
    public Collection<HeldClaim> firstLeases() {
        return firstLeases.values();
    }

    @Override
    public void dropFirstLease(String episodeId, String why) {
        HeldClaim first = firstLeases.remove(episodeId);
        if (first != null) {
            releaseClaim(first, why);
        }
    }

    public Optional<RunControl> control(String episodeId) {
        return Optional.ofNullable(running.get(episodeId));
    }

    public Collection<RunControl> running() {
        return running.values();
    }
}
