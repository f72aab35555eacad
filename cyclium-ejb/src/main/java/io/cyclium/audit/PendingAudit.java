package io.cyclium.audit;

import jakarta.persistence.EntityManager;
import java.util.Objects;

/**
 * The operator action the calling thread is performing, bound for the length of that call (as a
 * JTA transaction is bound to its thread), so that the transaction that makes the action's change
 * writes its audit row too: the code owning that transaction calls {@link #recordIn} inside it,
 * after its guards passed. The row then commits exactly when the change does, and rolls back with
 * it. Timers, host code and other threads have nothing bound, and {@link #recordIn} does nothing
 * for them.
 *
 * <p>Only the thread that was bound records: work handed to another thread (a group commit's
 * leader, an executor) must run the write on the caller's thread, or join its transaction.
 */
public final class PendingAudit implements AutoCloseable {

    private static final ThreadLocal<PendingAudit> BOUND = new ThreadLocal<>();

    private final AuditEntry entry;
    private final AuditStore store;
    private String detail;
    private String episodeId;
    private String subjectId;
    private boolean written;
    private String refusal;

    private PendingAudit(AuditEntry entry, AuditStore store) {
        this.entry = Objects.requireNonNull(entry, "entry");
        this.store = Objects.requireNonNull(store, "store");
    }

    /** Binds {@code entry} to this thread until {@link #close()}; one action at a time. */
    public static PendingAudit bind(AuditEntry entry, AuditStore store) {
        if (BOUND.get() != null) {
            throw new IllegalStateException("an audited action (" + BOUND.get().entry.action().wire()
                    + ") is already running on this thread; " + entry.action().wire() + " cannot start inside it");
        }
        PendingAudit pending = new PendingAudit(entry, store);
        BOUND.set(pending);
        return pending;
    }

    /**
     * Writes the bound action's {@code ok} row in {@code em}'s transaction. The row's id is the
     * action's, so calling this again is safe: in a later attempt of the same work (a deadlock
     * victim runs again) it writes the row the rolled-back attempt lost; in a later transaction of
     * an action that changes things in several (a workflow resume approves, then unblocks) it finds
     * the row committed and adds nothing.
     */
    public static void recordIn(EntityManager em) {
        PendingAudit pending = BOUND.get();
        if (pending != null) {
            pending.writeIn(em);
        }
    }

    /** The action bound to this thread; null when none is (a timer, host code). */
    public static PendingAudit bound() {
        return BOUND.get();
    }

    /**
     * {@link #recordIn} for this action from any thread: the work of a caller's action that a
     * group commit's writer thread runs in a shared transaction ({@link #bound} taken on the
     * caller's thread before handing it over). The caller reads {@link #written} only once that
     * transaction has answered, after the hand-over's latch.
     */
    public void writeIn(EntityManager em) {
        store.insert(em, entry(), Outcome.OK, null);
        written = true;
    }

    /** Names the subject an action creates (a manual start's episode, a retention run) before it is recorded. */
    public static void subject(String id) {
        PendingAudit pending = BOUND.get();
        if (pending != null) {
            pending.subjectId = id;
        }
    }

    /** Names the episode an action on another subject concerns (an output's), before it is recorded. */
    public static void episode(String id) {
        PendingAudit pending = BOUND.get();
        if (pending != null) {
            pending.episodeId = id;
        }
    }

    /**
     * The action was answered without changing anything and without an exception (a manual start
     * the runtime did not store): its row says refused, with {@code reason}.
     */
    public static void refuse(String reason) {
        PendingAudit pending = BOUND.get();
        if (pending != null) {
            pending.refusal = reason;
        }
    }

    /** A short note on what the action did (a mode, a step, a plan hash), before it is recorded. */
    public static void detail(String text) {
        PendingAudit pending = BOUND.get();
        if (pending != null) {
            pending.detail = text;
        }
    }

    /** The entry as it stands now, with what the action added to it. */
    public AuditEntry entry() {
        AuditEntry e = entry;
        if (subjectId != null) {
            e = e.withSubject(subjectId);
        }
        if (episodeId != null) {
            e = e.withEpisode(episodeId);
        }
        return detail != null ? e.withDetail(detail) : e;
    }

    /** Why the action was refused without an exception; empty when it was not. */
    public java.util.Optional<String> refusal() {
        return java.util.Optional.ofNullable(refusal);
    }

    /** Whether a transaction wrote the row (committed unless the action then failed). */
    public boolean written() {
        return written;
    }

    @Override
    public void close() {
        if (BOUND.get() == this) {
            BOUND.remove();
        }
    }
}
