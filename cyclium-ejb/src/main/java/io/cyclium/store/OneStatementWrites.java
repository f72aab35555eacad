package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The writes of one work sent as one statement inside the caller's own transaction, the way a
 * group commit sends each work of a shared batch ({@link OneStatementWork}): for a write that takes
 * a transaction of its own and goes on reading after its writes (a workflow step's terminal write
 * advances its instance), so its first writes cost one round trip, not one each.
 *
 * <p>The work runs against a recording entity manager that answers every write "one row changed";
 * its statements then go out as one (PostgreSQL's data-modifying {@code WITH}, when every write is
 * marked {@link NativeSql#independent}; else a statement each), and the count is checked. A count
 * other than one means an answer the work was given was wrong — the episode was canceled, the
 * lease moved on — and parts of the statement may have applied: {@link Mismatch} rolls the whole
 * transaction back, and the caller runs the work again for real, where each write meets the
 * database's real answer. A work that needs anything but a write (a read) is not recorded at all:
 * nothing was sent, and the caller runs it for real in the same transaction.
 */
public final class OneStatementWrites {

    /** The statement changed other than one row: the transaction rolls back; run the work again for real. */
    @jakarta.ejb.ApplicationException(rollback = true)
    public static final class Mismatch extends RuntimeException {
        Mismatch(String why) {
            super(why, null, false, false);
        }
    }

    private OneStatementWrites() {
    }

    /**
     * Records {@code writes} and sends them on {@code em}'s transaction; the work's answer, or empty
     * when it could not be recorded (nothing was sent: run it for real). Throws {@link Mismatch}.
     * Like a group commit's works, {@code writes} must be safe to run twice (recorded, then for real).
     */
    public static <T> Optional<T> send(EntityManager em, Function<EntityManager, T> writes) {
        DeferredUpdates.Recording<T> r = DeferredUpdates.recorded(writes);
        if (r == null) {
            return Optional.empty();
        }
        try {
            DeferredUpdates.run(em, List.of(r.statements()), true);
        } catch (DeferredUpdates.CountMismatch e) {
            throw new Mismatch(e.getMessage());
        }
        return Optional.of(java.util.Objects.requireNonNull(r.answer(), "a recorded work answers something"));
    }
}
