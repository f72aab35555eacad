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
 * (created by the test). Exactly-once delivery is then simply "one row per dedupe key".
 */
@ApplicationScoped
public class DeliveryLog implements OutputAdapter {

    public static final String TYPE = "delivery_log";

    @Resource(lookup = "jdbc/cyclium")
    DataSource dataSource;

    @Inject
    NodeIdentity identity;

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
