package io.cyclium.console;

import io.cyclium.claims.ClaimChanged;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeProgressed;
import io.cyclium.finding.FindingChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.faces.push.Push;
import jakarta.faces.push.PushContext;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells open console pages that something changed on this node, over the Faces websocket channel
 * {@value #CHANNEL} (every page's template listens). The message only names what changed
 * ({@code {"what":"episode","id":"…","status":"done"}}, {@code "step"} for each journal row,
 * {@code "claim"} with the lease's key for each lease taken, settled or lost); the page then reads the database again,
 * so what it shows is the database's truth, never the message's. Changes made on other nodes
 * reach a page through its slow safety refresh (see cyclium.js). A failure here is logged and
 * never reaches the episode or finding that fired the event.
 */
@ApplicationScoped
public class ConsolePush {

    static final String CHANNEL = "cyclium";
    private static final Logger LOG = Logger.getLogger(ConsolePush.class.getName());

    @Inject
    @Push(channel = CHANNEL)
    PushContext pages;

    private final AtomicLong sent = new AtomicLong();

    void onEpisodeFinished(@Observes EpisodeFinished e) {
        send(Map.of("what", "episode", "id", text(e.episodeId()), "status", text(e.status())));
    }

    /** A journal row committed here: the episode's page shows it without waiting for the episode's end. */
    void onEpisodeProgressed(@Observes EpisodeProgressed p) {
        send(Map.of("what", "step", "id", text(p.episodeId()), "step", String.valueOf(p.stepNo()), "kind", text(p.kind())));
    }

    /** A lease this node took, settled or lost: the claims page and the page of the episode under that key. */
    void onClaimChanged(@Observes ClaimChanged c) {
        send(Map.of("what", "claim", "key", text(c.key()), "owner", text(c.owner()), "fence", String.valueOf(c.fence()),
                "change", text(c.change())));
    }

    void onFindingChanged(@Observes FindingChanged f) {
        send(Map.of("what", "finding", "id", text(f.findingId()), "episode", text(f.episodeId())));
    }

    private void send(Map<String, String> json) {
        try {
            pages.send(json);
            sent.incrementAndGet();
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "console push failed (open pages fall back to polling): " + json, e);
        }
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    public long sent() {
        return sent.get();
    }
}
