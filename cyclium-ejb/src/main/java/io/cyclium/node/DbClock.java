package io.cyclium.node;

import io.cyclium.store.DatabaseVendor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Timestamp;
import java.time.LocalDateTime;

/**
 * The database's clock, the only clock lease arithmetic may use: nodes whose own clocks drift
 * still agree on it. Guards embed {@link #nowSql()} and {@link #plusSecondsSql(String)} in their
 * statements rather than reading the time first, so no node-local instant ever enters a lease.
 */
@ApplicationScoped
public class DbClock {

    @Inject
    DatabaseNow database;

    @Inject
    DatabaseVendor vendor;

    public DatabaseVendor vendor() {
        return vendor;
    }

    /** SQL for "now" (UTC) on this database. */
    public String nowSql() {
        return vendor().utcNow();
    }

    /** SQL for "now + n seconds" (UTC) where n is bound at {@code parameter}, e.g. {@code "?3"}. */
    public String plusSecondsSql(String parameter) {
        return vendor().utcNowPlusSeconds(parameter);
    }

    /** Reads the database's current UTC time (one round trip; for display and diagnostics). */
    public LocalDateTime now() {
        return toLocalDateTime(database.select(nowSql()));
    }

    /** A time as JDBC drivers hand it back (Timestamp or LocalDateTime), as a LocalDateTime. */
    public static LocalDateTime toLocalDateTime(Object value) {
        if (value instanceof Timestamp ts) {
            return ts.toLocalDateTime();
        }
        if (value instanceof LocalDateTime ldt) {
            return ldt;
        }
        throw new IllegalStateException("Unexpected database time type " + (value == null ? "null" : value.getClass()));
    }
}
