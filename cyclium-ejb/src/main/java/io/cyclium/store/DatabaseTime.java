package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The time a write stamps, as SQL: retry due times, and the times of workflow instances, steps and
 * their journal. On a node it is the database's clock ({@link #of}), as for leases: a due time
 * written by one node is compared by another node's claim, so both sides must read one clock, and
 * a node whose own clock runs ahead must not make a retry due early (or one running behind make it
 * late) for the whole cluster. The time is written into the statement ({@code now}, {@code now +
 * backoff}, {@code now - column}), never read first.
 *
 * <p>{@link #following} stamps a given clock's instants instead, bound as parameters: for tests
 * that advance time instead of sleeping. Production wiring never uses it.
 */
public abstract class DatabaseTime {

    private final DatabaseVendor vendor;

    private DatabaseTime(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /** The database's own clock (UTC), on every vendor. */
    public static DatabaseTime of(DatabaseVendor vendor) {
        return new DatabaseTime(vendor) {
            @Override
            public Object now() {
                return NativeSql.raw(vendor.utcNow());
            }

            @Override
            public NativeSql plusMillis(NativeSql sql, long millis) {
                return sql.around(millis, vendor::utcNowPlusMillis);
            }
        };
    }

    /** A given clock's instants, bound as parameters (tests that advance time). */
    public static DatabaseTime following(DatabaseVendor vendor, Clock clock) {
        return new DatabaseTime(vendor) {
            @Override
            public Object now() {
                return Timestamp.valueOf(LocalDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
            }

            @Override
            public NativeSql plusMillis(NativeSql sql, long millis) {
                return sql.value(Timestamp.valueOf(LocalDateTime.ofInstant(clock.instant().plusMillis(millis), ZoneOffset.UTC)));
            }
        };
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    /** "now" as a value for {@link NativeSql#value} or an insert's column map. */
    public abstract Object now();

    /**
     * Reads "now" (one statement with the database's clock), for the rare decision that needs the
     * time in Java — an instance's duration in its statistics — in the transaction that writes it.
     */
    public LocalDateTime read(EntityManager em) {
        Object now = now();
        if (now instanceof NativeSql.Raw raw) {
            Object v = em.createNativeQuery("SELECT " + raw.sql()).getSingleResult();
            return v instanceof Timestamp t ? t.toLocalDateTime() : (LocalDateTime) v;
        }
        return ((Timestamp) now).toLocalDateTime();
    }

    /** Appends "now". */
    public NativeSql now(NativeSql sql) {
        return sql.value(now());
    }

    /** Appends "now + millis". */
    public abstract NativeSql plusMillis(NativeSql sql, long millis);

    /** Appends the whole milliseconds from {@code column}'s time until now. */
    public NativeSql millisSince(NativeSql sql, String column) {
        Object now = now();
        if (now instanceof NativeSql.Raw raw) {
            return sql.sql(vendor.millisBetween(column, raw.sql()));
        }
        return sql.around(now, p -> vendor.millisBetween(column, p));
    }
}
