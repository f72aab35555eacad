package io.cyclium.operations;

import io.cyclium.audit.PendingAudit;
import io.cyclium.config.CycliumConfigReader;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Bulk actions by filter: preview, accept (the targets are frozen then), process in chunks under a
 * lease, continue what a dead node left. The per-item semantics are the single-episode operation's
 * ({@link Operation}; in the container {@code BulkCommands} runs {@code EpisodeService.cancel}
 * and the others): a refusal of the single operation (a 409 or 404 {@link Problem}: "already done",
 * "not failed") is recorded as {@code skipped} with its message, any other exception as
 * {@code failed} with the error. Guards and the reasons why no item runs twice: {@link BulkStore}.
 */
public final class BulkActions {

    private static final Logger LOG = Logger.getLogger(BulkActions.class.getName());

    /** Items read per chunk; the lease is renewed before each chunk and checked with each item. */
    public static final int CHUNK = 50;
    /** How many matching episodes a preview shows. */
    public static final int SAMPLE = 20;
    /** How long a node holds an action without renewing it, unless {@code cyclium.bulk.lease-seconds} says otherwise. */
    public static final Duration LEASE = Duration.ofSeconds(CycliumConfigReader.BULK_LEASE_DEFAULT_SECONDS);

    /** One episode's part of a bulk action: what was done (a short note), or a {@link Problem} why not. */
    @FunctionalInterface
    public interface Operation {
        /** @param by who the action runs for (its creator, naming the action) */
        String apply(BulkKind kind, String episodeId, String by);
    }

    /**
     * The operation ran and did not succeed (an output retried and failed again): recorded as
     * {@code failed} with this message; no server error is logged for it.
     */
    public static final class ItemFailed extends RuntimeException {
        public ItemFailed(String message) {
            super(message, null, false, false);
        }
    }

    /** An accepted action and the fence its accepting node holds it with (1). */
    public record Accepted(BulkActionView view, long fence) {
    }

    private final Tx tx;
    private final BulkStore store;
    private final EpisodeListing listing;
    private final Operation operation;
    private final String node;
    private final int maxItems;
    private final Duration lease;
    private final Telemetry telemetry;

    public BulkActions(Tx tx, DatabaseTime time, Operation operation, String node, int maxItems, Duration lease,
            Telemetry telemetry) {
        this.tx = tx;
        this.store = new BulkStore(time);
        this.listing = new EpisodeListing(time.vendor());
        this.operation = operation;
        this.node = node;
        this.maxItems = maxItems;
        this.lease = lease;
        this.telemetry = telemetry;
    }

    private volatile boolean stopping;

    /** This node is shutting down: every {@link #process} gives its action back before its next item. */
    public void stop() {
        stopping = true;
    }

    public int maxItems() {
        return maxItems;
    }

    /** How many episodes match, the first {@link #SAMPLE}, and the token of the set; changes nothing. */
    public BulkPreview preview(BulkKind kind, EpisodeFilter filter) {
        return tx.inNewTransaction(em -> {
            List<String> ids = listing.ids(em, filter, maxItems + 1);
            List<EpisodeView> sample = listing.page(em, filter, null, SAMPLE).episodes();
            if (ids.size() > maxItems) {
                long count = listing.count(em, filter);
                return new BulkPreview(kind.wire(), BulkFilters.toMap(filter), count, maxItems, null, sample, overCap(count));
            }
            return new BulkPreview(kind.wire(), BulkFilters.toMap(filter), ids.size(), maxItems, token(kind, filter, ids), sample,
                    ids.isEmpty() ? "no episode matches the filter: there is nothing to do" : null);
        });
    }

    /**
     * Accepts the action when the caller confirms the set the preview showed: {@code token} (the
     * preview's) must still fit the episodes that match now, or — without a token —
     * {@code expectedCount} must equal how many match now. The matching ids are frozen as the
     * action's items in the same transaction as the action row and the operator's audit row; the
     * caller then processes it ({@link #process}) with the returned fence.
     *
     * @throws Problem 400 naming {@code confirm} without either, {@code filter} when nothing or
     *                 more than {@link #maxItems} match; 409 when the set changed since the preview
     */
    public Accepted start(BulkKind kind, EpisodeFilter filter, Long expectedCount, String token, String by) {
        if (expectedCount == null && (token == null || token.isBlank())) {
            throw Problem.invalid("confirm", "a bulk action runs only when confirmed against its preview: send \"token\" from"
                    + " POST /api/bulk-actions/preview (or \"expectedCount\", the count it showed)");
        }
        String id = UUID.randomUUID().toString();
        return tx.inNewTransaction(em -> {
            List<String> ids = listing.ids(em, filter, maxItems + 1);
            if (ids.size() > maxItems) {
                throw Problem.invalid("filter", overCap(listing.count(em, filter)));
            }
            if (ids.isEmpty()) {
                throw Problem.invalid("filter", "no episode matches the filter: there is nothing to do");
            }
            if (token != null && !token.isBlank() && !token.trim().equals(token(kind, filter, ids))) {
                throw Problem.conflict("the episodes matching the filter changed since the preview (" + ids.size()
                        + " match now, and not the same ones): nothing was done; preview again and confirm the new set");
            }
            if ((token == null || token.isBlank()) && expectedCount != ids.size()) {
                throw Problem.conflict("the preview showed " + expectedCount + " matching episodes, " + ids.size()
                        + " match now: nothing was done; preview again and confirm the new count");
            }
            store.insert(em, id, kind, BulkFilters.toJson(filter), by == null || by.isBlank() ? "unknown" : by, node, lease, ids);
            PendingAudit.subject(id);
            PendingAudit.detail(kind.wire() + " of " + ids.size() + " episodes matching " + BulkFilters.toJson(filter));
            PendingAudit.recordIn(em);
            return new Accepted(store.find(em, id).orElseThrow(), 1L);
        });
    }

    /**
     * Works through the action's open items while this node holds {@code fence}: a chunk at a time,
     * the lease renewed before each; each item taken, run and recorded in transactions of their own
     * (the operation opens its own). Returns when no item is open (the action is marked done) or
     * the lease is lost. Never throws: a failure is logged with the action's id and the action is
     * left for the next continuation.
     */
    public void process(String actionId, long fence) {
        try {
            java.util.Optional<BulkActionView> action = tx.inNewTransaction(em -> store.find(em, actionId));
            if (action.isEmpty()) {
                return;
            }
            BulkKind kind = BulkKind.parse(action.get().action());
            String by = action.get().createdBy() + " (bulk action " + actionId + ")";
            while (true) {
                if (!tx.inNewTransaction(em -> store.renew(em, actionId, fence, lease))) {
                    String status = find(actionId).map(BulkActionView::status).orElse("gone");
                    LOG.info(() -> "Bulk action " + actionId + ": " + node + " stops working on it (fence " + fence + "): "
                            + (BulkStore.RUNNING.equals(status) ? "another node holds it now and goes on with it"
                                    : "it is " + status));
                    return;
                }
                List<BulkStore.OpenItem> chunk = tx.inNewTransaction(em -> store.open(em, actionId, CHUNK));
                if (chunk.isEmpty()) {
                    tx.inNewTransaction(em -> store.finish(em, actionId, fence));
                    return;
                }
                for (BulkStore.OpenItem item : chunk) {
                    if (stopping) {
                        // this node is shutting down: give the lease back so another node goes on at once
                        tx.run(em -> store.release(em, actionId, fence));
                        LOG.info(() -> "Bulk action " + actionId + ": " + node + " is stopping; it gave the action back");
                        return;
                    }
                    if (!tx.inNewTransaction(em -> store.take(em, actionId, item.itemNo(), fence))) {
                        // the lease ran out, another node took the action over, or it was canceled
                        // (through any node): the renewal says which
                        break;
                    }
                    runItem(actionId, fence, kind, by, item);
                }
            }
        } catch (RuntimeException e) {
            telemetry.count("bulk_action_failed");
            LOG.log(Level.WARNING, "Bulk action " + actionId + " stopped on " + node + " (fence " + fence + "); its open items"
                    + " are continued when its lease has lapsed", e);
        }
    }

    private void runItem(String actionId, long fence, BulkKind kind, String by, BulkStore.OpenItem item) {
        BulkItemResult result;
        String reason;
        try {
            reason = operation.apply(kind, item.episodeId(), by);
            result = BulkItemResult.DONE;
        } catch (Problem p) {
            boolean refused = p.status() == 409 || p.status() == 404;
            result = refused ? BulkItemResult.SKIPPED : BulkItemResult.FAILED;
            reason = p.getMessage();
        } catch (ItemFailed f) {
            result = BulkItemResult.FAILED;
            reason = f.getMessage();
        } catch (RuntimeException e) {
            String errorId = UUID.randomUUID().toString();
            LOG.log(Level.WARNING, "Bulk action " + actionId + ": " + kind.wire() + " of episode " + item.episodeId()
                    + " failed (error " + errorId + ")", e);
            result = BulkItemResult.FAILED;
            reason = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + " (server log error "
                    + errorId + ")";
        }
        if (item.interrupted()) {
            // a node took it before and died (or stalled past its lease) before recording it: it may
            // have done it, and then the single operation's guard refused it now
            reason = "after an interrupted attempt: " + reason;
        }
        BulkItemResult recorded = result;
        String why = reason;
        if (tx.inNewTransaction(em -> store.record(em, actionId, item.itemNo(), fence, recorded, why))) {
            telemetry.count("bulk_items", "action", kind.wire(), "result", recorded.wire());
        }
    }

    /**
     * Takes over and finishes running actions nobody holds (their node died or was redeployed),
     * and settles the items a dead node left {@code working} in a canceled action: run after every
     * recovery sweep. An idle pass is one read. Returns how many actions this call took over.
     */
    public int continueOrphans(int limit) {
        int taken = 0;
        for (BulkStore.Orphan orphan : tx.inNewTransaction(em -> store.orphans(em, limit))) {
            String id = orphan.id();
            if (orphan.canceled()) {
                int settled = tx.inNewTransaction(em -> store.settleCanceled(em, id));
                if (settled > 0) {
                    LOG.info(() -> "Bulk action " + id + " (canceled): " + node + " recorded " + settled + " item(s) its dead"
                            + " holder left working as skipped");
                }
                continue;
            }
            OptionalLong fence = tx.inNewTransaction(em -> store.claim(em, id, node, lease));
            if (fence.isPresent()) {
                taken++;
                LOG.info(() -> "Bulk action " + id + ": " + node + " continues it (fence " + fence.getAsLong() + ")");
                process(id, fence.getAsLong());
            }
        }
        return taken;
    }

    /**
     * Cancels a running action, on whichever node processes it: the items not yet taken are
     * recorded as skipped ({@value BulkStore#CANCELED_REASON}), the items done stay as they are,
     * and the node working on it stops before its next item (its next take sees the status). The
     * audit row is written in the same transaction.
     *
     * @throws Problem 404 for an unknown id, 409 naming the status of an action that is not running
     */
    public BulkActionView cancel(String id) {
        return tx.inNewTransaction(em -> {
            java.util.OptionalInt skipped = store.cancel(em, id);
            if (skipped.isEmpty()) {
                BulkActionView v = store.find(em, id)
                        .orElseThrow(() -> Problem.notFound("no bulk action " + EpisodeFilter.shorten(id)));
                throw Problem.conflict("bulk action " + id + " is " + v.status() + ": only a running one can be canceled");
            }
            BulkActionView v = store.find(em, id).orElseThrow();
            PendingAudit.detail(v.action() + " of " + v.total() + " episodes: " + skipped.getAsInt() + " not yet processed"
                    + " skipped, " + v.done() + " done and " + v.failed() + " failed before the cancel");
            PendingAudit.recordIn(em);
            return v;
        });
    }

    public java.util.Optional<BulkActionView> find(String id) {
        return tx.inNewTransaction(em -> store.find(em, id));
    }

    public List<BulkActionView> newest(int limit) {
        return tx.inNewTransaction(em -> store.newest(em, limit));
    }

    public List<BulkItemView> items(String id, int afterItemNo, BulkItemResult result, int limit) {
        return tx.inNewTransaction(em -> store.items(em, id, afterItemNo, result, limit));
    }

    private String overCap(long count) {
        return "the filter matches " + count + " episodes, more than a bulk action takes (" + maxItems
                + ", cyclium.bulk.max-items): narrow it, e.g. by time (from, to), and act on each part";
    }

    /** The token of exactly this set for this action: the preview's, checked again at the start. */
    static String token(BulkKind kind, EpisodeFilter filter, List<String> ids) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((kind.wire() + "\n" + BulkFilters.toJson(filter) + "\n").getBytes(StandardCharsets.UTF_8));
            for (String id : ids) {
                sha.update(id.getBytes(StandardCharsets.US_ASCII));
                sha.update((byte) ',');
            }
            return ids.size() + "-" + HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
