package io.cyclium.operations;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.AuditEntry;
import io.cyclium.audit.AuditStore;
import io.cyclium.audit.Operator;
import io.cyclium.audit.Outcome;
import io.cyclium.audit.PendingAudit;
import io.cyclium.node.NodeIdentity;
import io.cyclium.output.OutputRetryRefusedException;
import io.cyclium.output.UnknownOutputException;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every operator action of the console and the API runs through {@link #perform}: the action is
 * bound to the calling thread ({@link PendingAudit}) while it runs, and the transaction that makes
 * its change writes the audit row with it. What {@link #perform} adds after the action:
 * <ul>
 *   <li>an action that changed nothing in the database (an actor's mode lives in this node's
 *       memory; a sweep is many transactions of its own) gets its {@code ok} row here, on its own;
 *   <li>a refused action (a {@link Problem}, an output that cannot be retried, or an answer the
 *       action marked refused) gets a {@code refused} row with the reason, in its own transaction;
 *   <li>any other failure a {@code failed} row naming a log id — unless the action's own row
 *       committed before the failure (its change stands; the failure came after it).
 * </ul>
 * A row that cannot be written for a refusal is logged, never thrown: the caller gets the
 * refusal it caused, not an error about the audit.
 */
@ApplicationScoped
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class.getName());

    @Inject
    Tx tx;

    @Inject
    NodeIdentity identity;

    @Inject
    DatabaseVendor vendor;

    private AuditStore store;

    @PostConstruct
    void init() {
        store = new AuditStore(vendor);
    }

    /** The node the audit rows name: this one. */
    String node() {
        return identity.name();
    }

    /** Runs {@code action} for {@code operator} on {@code subjectId}, recorded as described above. */
    public <T> T perform(Operator operator, AuditAction action, String subjectId, Supplier<T> work) {
        AuditEntry entry = AuditEntry.of(operator, node(), action, subjectId);
        try (PendingAudit pending = PendingAudit.bind(entry, store)) {
            T result;
            try {
                result = work.get();
            } catch (RuntimeException e) {
                settleFailure(pending, e);
                throw e;
            }
            if (!pending.written()) {
                Outcome outcome = pending.refusal().isPresent() ? Outcome.REFUSED : Outcome.OK;
                write(pending.entry(), outcome, pending.refusal().orElse(null));
            }
            return result;
        }
    }

    /** Records an action refused before it ran (a viewer's forged console post): nothing changed. */
    public void refuse(Operator operator, AuditAction action, String subjectId, String reason) {
        writeQuietly(AuditEntry.of(operator, node(), action, subjectId), Outcome.REFUSED, reason);
    }

    /** One page of the trail, newest first; {@code cursor} from an earlier page's {@code nextCursor}. */
    public AuditQueries.Page page(AuditFilter filter, String cursor, int limit) {
        if (limit < 1) {
            throw Problem.invalid("limit", "limit must be at least 1, was " + limit);
        }
        EpisodeCursor after = EpisodeCursor.decode(cursor);
        return tx.inNewTransaction(em -> new AuditQueries(vendor).page(em, filter, after, limit));
    }

    private void settleFailure(PendingAudit pending, RuntimeException e) {
        AuditEntry entry = pending.entry();
        Throwable cause = e instanceof EJBException && e.getCause() != null ? e.getCause() : e;
        if (pending.written() && committed(entry)) {
            return;
        }
        if (cause instanceof Problem || cause instanceof OutputRetryRefusedException || cause instanceof UnknownOutputException) {
            writeQuietly(entry, Outcome.REFUSED, cause.getMessage());
        } else {
            String id = UUID.randomUUID().toString();
            LOG.log(Level.WARNING, "Operator action " + entry.action().wire() + " on " + entry.subjectId() + " by "
                    + entry.operator().user() + " failed (audit error " + id + ")", cause);
            writeQuietly(entry, Outcome.FAILED, cause.getClass().getSimpleName() + " (server log: audit error " + id + ")");
        }
    }

    private boolean committed(AuditEntry entry) {
        try {
            return tx.inNewTransaction(em -> store.exists(em, entry.id()));
        } catch (RuntimeException unreadable) {
            return false;
        }
    }

    private void write(AuditEntry entry, Outcome outcome, String reason) {
        tx.inNewTransaction(em -> store.insert(em, entry, outcome, reason));
    }

    private void writeQuietly(AuditEntry entry, Outcome outcome, String reason) {
        try {
            write(entry, outcome, reason);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not record the " + outcome.wire() + " action " + entry.action().wire() + " on "
                    + entry.subjectId() + " by " + entry.operator().user() + " (" + reason + ")", e);
        }
    }
}
