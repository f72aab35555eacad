package io.cyclium.workflow;

import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.testing.TestJpa;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link StepLauncher} for engine tests that does what the runtime's does to the database: it
 * inserts the step's episode row with its dedupe key through the real {@link EpisodeStore}, in the
 * engine's launch transaction (as the runtime's insert joins it), so the
 * unique index on live dedupe keys decides duplicates exactly as in production. The test then plays
 * the actor: it ends an episode with {@link #finish} and decides which engines hear the event.
 */
class StepEpisodes implements StepLauncher {

    /** One launch that created an episode. */
    record Launched(String stepId, int attempt, String episodeId, JsonObject input) {
    }

    private final TestJpa db;
    private final EpisodeStore store;
    final List<Launched> launched = new CopyOnWriteArrayList<>();
    final Map<String, Boolean> canceled = new ConcurrentHashMap<>();

    StepEpisodes(TestJpa db) {
        this.db = db;
        this.store = new EpisodeStore(db.vendor());
    }

    // the instance's span while one launch runs (subclasses override the launch without it)
    private final ThreadLocal<String> traceParent = new ThreadLocal<>();

    @Override
    public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
            JsonObject input, String stack, String env, String parent) {
        traceParent.set(parent);
        try {
            return launch(em, step, instanceId, attempt, dedupeKey, input, stack, env);
        } finally {
            traceParent.remove();
        }
    }

    @Override
    public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
            JsonObject input, String stack, String env) {
        String id = UUID.randomUUID().toString();
        NewEpisode e = new NewEpisode(id, step.actor(), step.expectation(), "1",
                new TriggerInfo(TriggerInfo.WORKFLOW, null, null, input, null), dedupeKey, 3,
                new Budget(10, Duration.ofMinutes(1)), "test-node", false, stack, env, instanceId, step.id(),
                traceParent.get());
        boolean inserted = store.insert(em, e);
        if (!inserted) {
            return new Launch(Kind.DUPLICATE, null, "key taken");
        }
        launched.add(new Launched(step.id(), attempt, id, input));
        return new Launch(Kind.STARTED, id, null);
    }

    @Override
    public void cancel(String episodeId) {
        canceled.put(episodeId, true);
        db.run(em -> store.requestCancel(em, episodeId));
    }

    /** Ends a step's episode as the runtime would and returns the event it fires after the commit. */
    EpisodeFinished finish(String episodeId, EpisodeStatus status, String errorClass) {
        Object[] row = db.inNewTransaction(em -> (Object[]) em.createNativeQuery("SELECT workflow_instance_id,"
                + " workflow_step_id, actor_id, expectation_id FROM cyclium_episodes WHERE id = ?1").setParameter(1, episodeId)
                .getSingleResult());
        db.run(em -> store.finish(em, episodeId, status, 1, "summary of " + row[1], errorClass, null));
        return new EpisodeFinished(episodeId, (String) row[2], (String) row[3], status.wire(), errorClass, (String) row[0],
                (String) row[1]);
    }

    /** The one launch of a step's attempt (fails when there is none or more than one). */
    Launched only(String stepId, int attempt) {
        List<Launched> found = launched.stream().filter(l -> l.stepId().equals(stepId) && l.attempt() == attempt).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one launch of " + stepId + " attempt " + attempt + ", found " + found);
        }
        return found.get(0);
    }

    /** The one launch of a step's attempt in one instance. */
    Launched only(String instanceId, String stepId, int attempt) {
        List<Launched> found = launched.stream().filter(l -> l.stepId().equals(stepId) && l.attempt() == attempt
                && instanceId.equals(l.input().getJsonObject("workflow").getString("instanceId"))).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one launch of " + stepId + " attempt " + attempt + " in " + instanceId
                    + ", found " + found);
        }
        return found.get(0);
    }

    /** Launches of attempt {@code attempt} of any step in one instance. */
    long launches(String instanceId, int attempt) {
        return launched.stream().filter(l -> l.attempt() == attempt
                && instanceId.equals(l.input().getJsonObject("workflow").getString("instanceId"))).count();
    }

    List<String> stepsLaunched() {
        return launched.stream().map(Launched::stepId).toList();
    }
}
