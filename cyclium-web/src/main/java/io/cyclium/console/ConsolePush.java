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
import javax.naming.InitialContext;
import javax.naming.NamingException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells open console pages that something changed on this node, over the Faces websocket channel
 * {@value #CHANNEL} (every page's template listens). The message only names what changed
 * ({@code {"what":"episode","id":"…","status":"done"}}, {@code "step"} for each journal row,
 * {@code "claim"} with the lease's key for each lease taken, settled or lost; batched: see {@link #send}); the page then reads the database
 * again,
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

    static final long FLUSH_MS = 200;
    static final int MAX_ITEMS = 100;

    /**
     * Looked up when the flusher starts, not injected: the bean is created on whichever thread
     * fires its first event, in the EAR often an episode thread of the EJB module, where Payara
     * Server cannot resolve an injected resource of the web module
     * ({@code java:comp/env/io.cyclium.console.ConsolePush/threads}: every push failed). The
     * default factory is in every component's namespace.
     */
    private static ManagedThreadFactory threads() {
        try {
            return InitialContext.doLookup("java:comp/DefaultManagedThreadFactory");
        } catch (NamingException e) {
            throw new IllegalStateException("no java:comp/DefaultManagedThreadFactory", e);
        }
    }

    private final AtomicLong sent = new AtomicLong();
    private final Queue<Map<String, String>> queued = new ConcurrentLinkedQueue<>();
    /**
     * The queue's length, kept beside it: ConcurrentLinkedQueue.size() walks the queue, and every
     * episode sends three or four changes from twenty threads (seen in a profile of a busy node).
     * It may run a little ahead of the queue (added before the item, taken after the poll), so
     * the cap is never exceeded.
     */
    private final AtomicInteger queuedCount = new AtomicInteger();
    private volatile boolean overflow;
    private volatile Thread flusher;
    private volatile boolean stopped;

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

    /**
     * Queues the change; one message per {@value #FLUSH_MS} ms carries everything queued since
     * ({@code {"what":"batch","items":[…]}}, at most {@value #MAX_ITEMS} items and then
     * {@code {"what":"many"}}). Faces encodes every message with a JSON provider it looks up anew
     * each time — a class-path scan — so a message per finished episode cost a busy node a fifth
     * of its CPU; the pages coalesce bursts into one refresh anyway.
     */
    private void send(Map<String, String> json) {
        if (queuedCount.incrementAndGet() <= MAX_ITEMS) {
            queued.add(json);
        } else {
            queuedCount.decrementAndGet();
            overflow = true;
        }
        if (flusher == null) {
            startFlusher();
        }
    }

    /**
     * One container-managed thread flushes the queue every {@value #FLUSH_MS} ms while there is
     * anything in it. Not a scheduled executor's task per flush: each submission there captures
     * the caller's context, which on Payara scans the class path too.
     */
    private synchronized void startFlusher() {
        if (flusher != null || stopped) {
            return;
        }
        try {
            Thread t = threads().newThread(() -> {
                while (!stopped) {
                    try {
                        Thread.sleep(FLUSH_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    flush();
                }
            });
            t.setDaemon(true);
            t.start();
            flusher = t;
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "console push has no thread (open pages fall back to polling)", e);
        }
    }

    @PreDestroy
    void stop() {
        stopped = true;
        Thread t = flusher;
        if (t != null) {
            t.interrupt();
        }
    }

    void flush() {
        List<Map<String, String>> items = new ArrayList<>();
        for (Map<String, String> m = queued.poll(); m != null; m = queued.poll()) {
            items.add(m);
            queuedCount.decrementAndGet();
        }
        if (overflow) {
            overflow = false;
            items.add(Map.of("what", "many"));
        }
        if (items.isEmpty()) {
            return;
        }
        try {
            pages.send(Map.of("what", "batch", "items", items));
            sent.addAndGet(items.size());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "console push failed (open pages fall back to polling): " + items.size() + " changes", e);
        }
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    public long sent() {
        return sent.get();
    }
}
