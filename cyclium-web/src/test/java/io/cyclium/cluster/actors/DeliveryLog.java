package io.cyclium.cluster.actors;

import io.cyclium.node.NodeIdentity;
import io.cyclium.output.OutputAdapter;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/**
 * An adapter with no deduplication of its own: every call appends a row to {@code it_deliveries}
 * (created by the test through {@link #createTable}). Exactly-once delivery is then simply "one row per dedupe key".
 */
@ApplicationScoped
public class DeliveryLog implements OutputAdapter {

    public static final String TYPE = "delivery_log";

    @Resource(lookup = "jdbc/cyclium")
    DataSource dataSource;

    @Inject
    NodeIdentity identity;

    /** Creates the table this adapter writes to; the test calls it once on the cluster's fresh database. */
    public static void createTable(Connection c) throws java.sql.SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE it_deliveries (dedupe_key VARCHAR(512) NOT NULL, episode_id VARCHAR(36), node VARCHAR(255))");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public String deliver(Delivery d) throws Exception {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO it_deliveries (dedupe_key, episode_id, node) VALUES (?, ?, ?)")) {
            ps.setString(1, d.dedupeKey());
            ps.setString(2, d.episodeId());
            ps.setString(3, identity.name());
            ps.executeUpdate();
        }
        return "logged by " + identity.name();
    }
}
