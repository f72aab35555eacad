package io.cyclium.store;

import java.sql.SQLException;
import java.util.Set;

/**
 * Tells a write that may succeed when tried again (the database is down or restarting, a
 * connection broke, the pool could not hand one out, the commit's answer never came) from one that
 * will fail the same way every time (the statement itself is wrong for the data).
 *
 * <p>The default is "try again": a write of the runtime's own is well-formed by construction, so a
 * failure that names no permanent SQLState is taken for the infrastructure's. Trying a permanent
 * failure again costs only time — the caller's retry is bounded and then gives the work up to
 * recovery — while failing on a transient one would end an episode that never did anything wrong.
 */
public final class WriteFailures {

    /**
     * SQLState classes that describe the statement or its data, not the connection: 21 cardinality,
     * 22 data exception, 23 integrity constraint, 42 syntax or access rule, 0A feature not supported.
     */
    private static final Set<String> PERMANENT_CLASSES = Set.of("21", "22", "23", "42", "0A");

    private WriteFailures() {
    }

    /** Whether running the same write again later may succeed. {@link Undo} never is a failure here. */
    public static boolean retryable(Throwable t) {
        if (t instanceof Undo || t instanceof OneStatementWrites.Mismatch) {
            return false;
        }
        if (t instanceof GroupCommit.HandOverTimeout) {
            return true;
        }
        if (SqlCauses.any(t, WriteFailures::permanent)) {
            return false;
        }
        // A programming error with no database or I/O cause in sight is no outage.
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLException || c instanceof java.io.IOException) {
                return true;
            }
            String name = c.getClass().getName();
            if (name.startsWith("jakarta.transaction.") || name.startsWith("jakarta.resource.")
                    || name.startsWith("jakarta.persistence.") || name.startsWith("org.eclipse.persistence.exceptions.")
                    || name.startsWith("jakarta.ejb.") || name.contains("Pool") || name.contains("Resource")) {
                return true;
            }
        }
        return false;
    }

    private static boolean permanent(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.length() >= 2 && PERMANENT_CLASSES.contains(state.substring(0, 2));
    }
}
