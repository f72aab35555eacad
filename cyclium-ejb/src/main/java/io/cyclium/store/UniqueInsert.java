package io.cyclium.store;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * An INSERT whose unique key may already be taken by another node, run so that losing is an
 * answer ({@code false}) and not an error, and the caller's transaction stays usable.
 *
 * <p>A plain INSERT cannot do that: JPA marks the transaction rollback-only on any failed
 * statement, and PostgreSQL aborts the whole transaction on one. So each database gets the form
 * that reports a taken key without failing:
 * <ul>
 *   <li>PostgreSQL: {@code ON CONFLICT DO NOTHING} (0 rows). If the key is held by a transaction
 *       still in flight, the statement waits for it and then does nothing.
 *   <li>MariaDB: {@code ON DUPLICATE KEY UPDATE id = id}, which leaves the existing row as it is.
 *       Not {@code INSERT IGNORE}: on a duplicate that takes a shared lock on the existing row, and
 *       two losers that then update that row deadlock; this form takes the exclusive lock at once.
 *       The driver reports "found rows", so 1 could mean either outcome: a primary-key lookup of
 *       the id we minted tells which.
 *   <li>H2 and SQL Server roll back only the failed statement, so the plain INSERT runs on the
 *       transaction's own JDBC connection, outside JPA's error handling, and a unique violation is
 *       caught there.
 * </ul>
 * Any other failure (NOT NULL, a foreign key, a value too long) is still thrown.
 */
public final class UniqueInsert {

    private UniqueInsert() {
    }

    /**
     * Runs {@code insert}, an {@code INSERT INTO table (...) VALUES (...)} of a row whose primary
     * key column {@code id} holds {@code id}.
     *
     * @return true when this call added the row; false when a unique key was already taken
     */
    public static boolean insert(EntityManager em, DatabaseVendor vendor, String table, String id, NativeSql insert) {
        switch (vendor) {
            case POSTGRESQL:
                return insert.followedBy(" ON CONFLICT DO NOTHING").executeUpdate(em) == 1;
            case MARIADB:
                insert.followedBy(" ON DUPLICATE KEY UPDATE id = id").executeUpdate(em);
                Number mine = (Number) new NativeSql().sql("SELECT COUNT(*) FROM " + table + " WHERE ")
                        .is("id", id).query(em).getSingleResult();
                return mine.intValue() == 1;
            case H2:
            case SQLSERVER:
                return insertOnConnection(em, insert);
            default:
                throw new IllegalArgumentException(String.valueOf(vendor));
        }
    }

    /**
     * Runs {@code insert}, an {@code INSERT INTO table (...) VALUES (...)} whose primary key is a
     * natural key the caller did not mint (a claim's dedupe key), so nothing in the row tells
     * whether this call or a concurrent one added it; the caller takes the answer and commits,
     * without writing the row it lost to in the same transaction.
     *
     * <p>PostgreSQL uses {@code ON CONFLICT DO NOTHING}, H2 and SQL Server the plain INSERT, as
     * above. MariaDB uses {@code INSERT IGNORE}, which reports a taken key as 0 rows: the
     * {@code ON DUPLICATE KEY UPDATE} form cannot tell the two outcomes apart here (the driver
     * counts found rows, and there is no minted id to look up), and a plain INSERT that fails makes
     * the driver log every lost race as a warning. IGNORE also turns other errors into warnings
     * (a value too long is cut, a missing NOT NULL value becomes a default), so the caller must
     * give every NOT NULL column a value that fits. The losing INSERT holds a shared lock on the
     * winner's row until commit: two losers that then updated that row would deadlock.
     *
     * @return true when this call added the row; false when the key was already taken
     */
    public static boolean insertNaturalKey(EntityManager em, DatabaseVendor vendor, NativeSql insert) {
        switch (vendor) {
            case POSTGRESQL:
                return insert.followedBy(" ON CONFLICT DO NOTHING").executeUpdate(em) == 1;
            case MARIADB:
                return insert.replacingPrefix("INSERT INTO ", "INSERT IGNORE INTO ").executeUpdate(em) == 1;
            case H2:
            case SQLSERVER:
                return insertOnConnection(em, insert);
            default:
                throw new IllegalArgumentException(String.valueOf(vendor));
        }
    }

    private static boolean insertOnConnection(EntityManager em, NativeSql insert) {
        Connection connection = em.unwrap(Connection.class);
        if (connection == null) {
            throw new IllegalStateException("no JDBC connection: UniqueInsert needs an active transaction");
        }
        NativeSql.Jdbc jdbc = insert.jdbc();
        try (PreparedStatement ps = connection.prepareStatement(jdbc.text())) {
            for (int i = 0; i < jdbc.parameters().size(); i++) {
                ps.setObject(i + 1, jdbc.parameters().get(i));
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (UniqueViolation.isCause(e)) {
                return false;
            }
            throw new PersistenceException("insert failed: " + insert.text(), e);
        }
    }
}
