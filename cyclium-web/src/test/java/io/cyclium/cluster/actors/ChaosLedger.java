package io.cyclium.cluster.actors;

import io.cyclium.node.NodeIdentity;
import io.cyclium.output.OutputAdapter;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;

/**
 * The chaos suite's adapter, one that honours the idempotency key as the {@link OutputAdapter}
 * contract asks: a delivery whose key is already in {@code it_ledger} is answered from there, else
 * a row is appended. {@code it_ledger} has no unique constraint, so two deliveries of one key that
 * overlap (two holders of one lease: the bug the suite hunts) both append and show as doubles.
 * Every call is also counted in {@code it_ledger_calls}: redeliveries after a crash are expected
 * (at-least-once to the adapter) and reported.
 */
@ApplicationScoped
public class ChaosLedger implements OutputAdapter {

    public static final String TYPE = "chaos_ledger";

    @Resource(lookup = "jdbc/cyclium")
    DataSource dataSource;

    @Inject
    NodeIdentity identity;

    /** Creates the tables this adapter writes to; the test calls it once on the cluster's fresh database. */
    public static void createTables(Connection c) throws java.sql.SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE it_ledger (output_key VARCHAR(512) NOT NULL, episode_id VARCHAR(36), node VARCHAR(255))");
            s.execute("CREATE TABLE it_ledger_calls (output_key VARCHAR(512) NOT NULL, node VARCHAR(255))");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public String deliver(Delivery d) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement calls = c.prepareStatement("INSERT INTO it_ledger_calls (output_key, node) VALUES (?, ?)")) {
                calls.setString(1, d.dedupeKey());
                calls.setString(2, identity.name());
                calls.executeUpdate();
            }
            try (PreparedStatement seen = c.prepareStatement("SELECT node FROM it_ledger WHERE output_key = ?")) {
                seen.setString(1, d.dedupeKey());
                try (ResultSet rs = seen.executeQuery()) {
                    if (rs.next()) {
                        return "already in the ledger, by " + rs.getString(1);
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO it_ledger (output_key, episode_id, node) VALUES (?, ?, ?)")) {
                ps.setString(1, d.dedupeKey());
                ps.setString(2, d.episodeId());
                ps.setString(3, identity.name());
                ps.executeUpdate();
            }
        }
        return "ledger row by " + identity.name();
    }
}
