package io.cyclium.serverconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The connection settings every shipped pool runs on each new connection (Payara Micro's post-boot
 * files, Payara Server's and WildFly's configure.sh) are the same on all three servers, take effect
 * on the machine's PostgreSQL and MariaDB, and do what operating.md promises: a node frozen inside a
 * transaction (SIGSTOP, a long pause — to the database, a client that sends nothing more) loses its
 * row locks when the idle-in-transaction timeout passes, and the others' statements stop waiting
 * behind locks after the lock timeout.
 */
class ShippedPoolSettingsTest {

    private static final Path CONFIG = Path.of("..", "server-config");
    private static final Pattern POSTGRESQL = Pattern.compile("SELECT set_config\\('lock_timeout'[^\"]*?,false\\)(?=[\"\\\\])");
    private static final Pattern MARIADB = Pattern.compile("SET SESSION innodb_lock_wait_timeout=[^\"\\\\]*");

    private static List<String> shipped(Pattern sql) throws IOException {
        List<String> found = new ArrayList<>();
        for (String file : List.of("payara-micro/postboot-postgresql.asadmin", "payara-micro/postboot-mariadb.asadmin",
                "payara-server/configure.sh", "wildfly/configure.sh")) {
            Matcher m = sql.matcher(Files.readString(CONFIG.resolve(file)));
            while (m.find()) {
                found.add(file + ": " + m.group());
            }
        }
        return found;
    }

    private static String onlyOne(List<String> shipped) {
        List<String> statements = shipped.stream().map(s -> s.substring(s.indexOf(": ") + 2)).distinct().toList();
        assertThat(statements).as("one statement on every server: %s", shipped).hasSize(1);
        return statements.get(0);
    }

    private static String show(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(rs.getMetaData().getColumnCount());
        }
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void every_server_ships_the_same_postgresql_timeouts_and_they_take_effect() throws Exception {
        shipsOneStatementThatTakesEffect(POSTGRESQL, "jdbc:postgresql://127.0.0.1:5432/test", "postgres",
                java.util.Map.of("SHOW lock_timeout", "30s", "SHOW idle_in_transaction_session_timeout", "1min"));
    }

    @Test
    void every_server_ships_the_same_mariadb_timeouts_and_they_take_effect() throws Exception {
        shipsOneStatementThatTakesEffect(MARIADB, "jdbc:mariadb://127.0.0.1:3306/test", "root",
                java.util.Map.of("SHOW SESSION VARIABLES LIKE 'innodb_lock_wait_timeout'", "30",
                        "SHOW SESSION VARIABLES LIKE 'idle_transaction_timeout'", "60"));
    }

    /** One statement on all three servers; run on a connection, each query shows its expected value. */
    private static void shipsOneStatementThatTakesEffect(Pattern sql, String url, String user, java.util.Map<String, String> expected)
            throws Exception {
        List<String> shipped = shipped(sql);
        assertThat(shipped).as("Payara Micro, Payara Server and WildFly").hasSize(3);
        String init = onlyOne(shipped);
        try (Connection c = DriverManager.getConnection(url, user, "")) {
            run(c, init);
            for (java.util.Map.Entry<String, String> e : expected.entrySet()) {
                assertThat(show(c, e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void postgresql_ends_a_frozen_transaction_and_frees_its_row_locks_when_the_idle_timeout_passes() throws Exception {
        // the shipped statement with a one-second idle timeout instead of a minute: the same mechanism, quicker
        String init = onlyOne(shipped(POSTGRESQL)).replace("'60s'", "'1s'");
        assertThat(init).contains("'1s'");
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        try (Connection admin = DriverManager.getConnection(url, "postgres", "")) {
            run(admin, "CREATE TABLE IF NOT EXISTS frozen_node_probe (id INT PRIMARY KEY)");
            run(admin, "INSERT INTO frozen_node_probe VALUES (1) ON CONFLICT DO NOTHING");
        }
        try (Connection frozen = DriverManager.getConnection(url, "postgres", "");
                Connection other = DriverManager.getConnection(url, "postgres", "")) {
            run(frozen, init);
            run(other, init);
            frozen.setAutoCommit(false);
            run(frozen, "SELECT id FROM frozen_node_probe WHERE id = 1 FOR UPDATE");
            other.setAutoCommit(false);
            assertThatThrownBy(() -> run(other, "SELECT id FROM frozen_node_probe WHERE id = 1 FOR UPDATE NOWAIT"))
                    .as("held by the frozen transaction").isInstanceOf(SQLException.class);
            other.rollback();

            Thread.sleep(3_000); // the frozen node sends nothing: its transaction is idle

            run(other, "SELECT id FROM frozen_node_probe WHERE id = 1 FOR UPDATE NOWAIT");
            other.rollback();
            assertThatThrownBy(() -> run(frozen, "SELECT 1")).as("the frozen node's session was ended")
                    .isInstanceOf(SQLException.class);
        }
    }
}
