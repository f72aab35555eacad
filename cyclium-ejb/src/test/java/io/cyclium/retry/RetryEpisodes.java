package io.cyclium.retry;

import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.store.JsonText;
import io.cyclium.testing.TestJpa;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link RetryLauncher} for tests that does to the database what the runtime's does: it inserts
 * the next attempt's episode row with its dedupe key through the real {@link EpisodeStore}, so the
 * unique index on live keys decides duplicates as in production. The test plays the actor: it
 * creates and fails episodes with {@link #started} and {@link #fail}.
 */
final class RetryEpisodes implements RetryLauncher {

    static final String ACTOR = "retrying";
    static final String EXPECTATION = "flaky";

    /** One launch that created an episode. */
    record Launched(String failedId, String dedupeKey, String episodeId, JsonObject payload) {
    }

    private final TestJpa db;
    private final EpisodeStore store;
    final List<Launched> launched = new CopyOnWriteArrayList<>();

    RetryEpisodes(TestJpa db) {
        this.db = db;
        this.store = new EpisodeStore(db.vendor());
    }

    /** A first episode as a trigger would create it, running. */
    String started(String dedupeKey, JsonObject payload, String workflowInstanceId) {
        String id = UUID.randomUUID().toString();
        insert(id, dedupeKey, new TriggerInfo(TriggerInfo.EVENT, "resource.changed", "ev-1", payload, null),
                workflowInstanceId);
        return id;
    }

    private boolean insert(String id, String dedupeKey, TriggerInfo trigger, String workflowInstanceId) {
        NewEpisode e = new NewEpisode(id, ACTOR, EXPECTATION, "1", trigger, dedupeKey, 3, new Budget(10, Duration.ofMinutes(1)),
                "test-node", false, "stack", "env", workflowInstanceId, workflowInstanceId == null ? null : "step");
        return db.inNewTransaction(em -> store.insert(em, e));
    }

    @Override
    public Launch launch(EpisodeRetryQueries.DueRetry failed, String dedupeKey) {
        String id = UUID.randomUUID().toString();
        TriggerInfo trigger = TriggerInfo.fromJson(JsonText.parseObject(failed.triggerRef()));
        if (!insert(id, dedupeKey, trigger, null)) {
            return new Launch(Kind.DUPLICATE, Optional.empty(), "key taken");
        }
        launched.add(new Launched(failed.episodeId(), dedupeKey, id, trigger.payload()));
        return new Launch(Kind.CREATED, Optional.of(id), null);
    }

    /** Ends an episode as the runtime would and returns the event it fires after the commit. */
    EpisodeFinished end(String episodeId, EpisodeStatus status, String errorClass) {
        String wf = db.inNewTransaction(em -> (String) em.createNativeQuery("SELECT workflow_instance_id FROM"
                + " cyclium_episodes WHERE id = ?1").setParameter(1, episodeId).getSingleResult());
        db.run(em -> store.finish(em, episodeId, status, 1, null, errorClass, null));
        return new EpisodeFinished(episodeId, ACTOR, EXPECTATION, status.wire(), errorClass, wf, wf == null ? null : "step");
    }

    EpisodeFinished fail(String episodeId, String errorClass) {
        return end(episodeId, EpisodeStatus.FAILED, errorClass);
    }

    Launched only() {
        if (launched.size() != 1) {
            throw new AssertionError("expected one retry episode, found " + launched);
        }
        return launched.get(0);
    }

    Launched last() {
        return launched.get(launched.size() - 1);
    }
}
