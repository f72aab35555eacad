package io.cyclium.console;

import io.cyclium.episode.EpisodeFinished;
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
 * ({@code {"what":"episode","id":"…","status":"done"}}); the page then reads the database again,
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
