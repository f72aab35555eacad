package io.cyclium.operations;

import io.cyclium.audit.PendingAudit;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.WaitResolution;
import io.cyclium.episode.WaitStore;
import io.cyclium.problem.Problem;
import io.cyclium.store.DeadlockRetry;
import io.cyclium.store.Jsons;
import io.cyclium.store.Tx;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.function.Predicate;

/**
 * Delivers one signal to one episode, in one transaction: resolves the wait for that name when the
 * episode waits for it, or keeps the signal until it does.
 *
 * <p>Races: the wait row's DELETE is the guard ({@link WaitStore}): a timeout, an event or another
 * signal that resolved the wait first leaves 0 rows here. A signal that finds no wait row takes the
 * episode row's lock — the lock the blocking write holds while it adds its wait row and looks for
 * kept signals — and looks again before keeping it: a signal is never kept beside a wait that
 * started meanwhile (it would sit there unread), and never delivered twice. A deadlock with a
 * resolver that took the rows in the other order (one that found the wait row first) runs the
 * transaction again.
 */
public final class SignalDelivery {

    private final Tx tx;
    private final WaitStore waits;
    private final WaitResolution resolution;
    private final String node;

    public SignalDelivery(Tx tx, EpisodeStore episodes, WaitStore waits, String node) {
        this.tx = tx;
        this.waits = waits;
        this.resolution = new WaitResolution(episodes, waits);
        this.node = node;
    }

    /** What happened, and whose episode it is (for the resume after the commit). */
    public record Delivered(Signals.SignalOutcome outcome, String actorId, String expectationId) {
    }

    /**
     * {@code runsHere}: whether an actor runs on this node (the resolved episode is then named for
     * this node, which resumes it after the commit). 404 for an unknown episode, 409 for a finished one.
     */
    public Delivered toEpisode(String episodeId, String name, JsonValue payload, String by, Predicate<String> runsHere) {
        JsonValue value = payload == null ? JsonValue.NULL : payload;
        int size = value.toString().length();
        if (size > WaitStore.MAX_PAYLOAD_CHARS) {
            throw Problem.invalid("payload", "the signal's payload is " + size + " characters; at most "
                    + WaitStore.MAX_PAYLOAD_CHARS + " are accepted");
        }
        JsonObject detail = Jsons.object().add("reference", name).add("value", value).add("signal", name)
                .add("by", by == null ? "" : by).build();
        return DeadlockRetry.inNewTransaction(tx, em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, episodeId);
            if (e == null) {
                throw Problem.notFound("no episode " + episodeId);
            }
            String runNode = runsHere.test(e.actorId) ? node : null;
            boolean delivered = resolution.resolve(em, episodeId, WaitResolution.Guard.NAMED, name, detail, node, runNode);
            String status = EpisodeStatus.RUNNING.wire();
            if (!delivered) {
                // no wait for it now: hold the row as a blocking write does, and look once more
                status = waits.lockEpisode(em, episodeId).orElseThrow(() -> Problem.notFound("no episode " + episodeId));
                if (EpisodeStatus.parse(status).map(EpisodeStatus::terminal).orElse(true)) {
                    throw Problem.conflict("episode " + episodeId + " is " + status + ": a signal for it would never be read");
                }
                delivered = resolution.resolve(em, episodeId, WaitResolution.Guard.NAMED, name, detail, node, runNode);
                if (!delivered) {
                    waits.keepSignal(em, WaitStore.EPISODE, episodeId, name, value, by);
                }
            }
            PendingAudit.subject(episodeId);
            PendingAudit.detail((delivered ? "delivered " : "kept ") + name);
            PendingAudit.recordIn(em);
            return new Delivered(new Signals.SignalOutcome(episodeId, name, delivered, status), e.actorId, e.expectationId);
        }, attempt -> { });
    }
}
