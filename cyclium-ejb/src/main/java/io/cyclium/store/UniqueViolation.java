package io.cyclium.store;

import java.sql.SQLException;

/**
 * Recognises "a unique index said no" across drivers and wrappers. That outcome is how the
 * database tells a node it lost a race (dedupe key, claim key, output key): callers treat it as a
 * normal result, never as an error.
 */
public final class UniqueViolation {

    private UniqueViolation() {
    }

    public static boolean isCause(Throwable t) {
        return SqlCauses.any(t, UniqueViolation::isUniqueViolation);
    }

    static boolean isUniqueViolation(SQLException e) {
        String state = e.getSQLState();
        int code = e.getErrorCode();
        // H2 and PostgreSQL: 23505. MariaDB: 23000 for every constraint, 1062 for duplicate keys.
        // SQL Server: 2601 (unique index) / 2627 (unique constraint).
        return "23505".equals(state)
                || ("23000".equals(state) && (code == 1062 || code == 2601 || code == 2627))
                || code == 1062 || code == 2601 || code == 2627;
    }
}
