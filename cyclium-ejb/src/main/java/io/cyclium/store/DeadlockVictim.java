package io.cyclium.store;

import java.sql.SQLException;

/**
 * Recognises "the database broke a deadlock by rolling back this transaction" (or, the same class
 * 40 of SQLState, could not serialise it) across drivers and wrappers. The whole transaction is
 * gone, nothing of it was applied, and running it again is the database's own advice.
 */
public final class DeadlockVictim {

    private DeadlockVictim() {
    }

    /** Also true for {@link RunAgain}: the work's own finding that a write it depends on lost, with the same advice. */
    public static boolean isCause(Throwable t) {
        return SqlCauses.any(t, DeadlockVictim::isDeadlock) || RunAgain.isCause(t);
    }

    static boolean isDeadlock(SQLException e) {
        // PostgreSQL: 40P01 (40001 for a serialisation failure). MariaDB: 40001 with error 1213.
        // H2: 40001. SQL Server: 40001 with error 1205. A lock wait timeout is not this.
        return "40P01".equals(e.getSQLState()) || "40001".equals(e.getSQLState());
    }
}
