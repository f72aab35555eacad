package io.cyclium.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.config.NodeMode;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.util.UUID;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The node row against real databases. Every test uses a node name of its own. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NodeStoreTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_restarted_node_keeps_its_one_row_and_is_no_longer_stopped(Vendor vendor) {
        TestJpa jpa = databases.jpa(vendor);
        NodeStore store = new NodeStore(jpa.vendor());
        String node = "node-" + UUID.randomUUID();
        jpa.run(em -> store.register(em, node, NodeMode.FULL, null, "rc", "first"));
        jpa.run(em -> em.createNativeQuery("UPDATE cyclium_nodes SET stopped_at = started_at WHERE node_identity = ?1")
                .setParameter(1, node).executeUpdate());

        jpa.run(em -> store.register(em, node, NodeMode.TRIGGER_ONLY, "stack-a", null, "second"));

        Object[] row = row(jpa, node);
        assertThat(((Number) row[0]).longValue()).isEqualTo(1L);
        assertThat(row[1]).isEqualTo(NodeMode.TRIGGER_ONLY.wireName());
        assertThat(row[2]).isEqualTo("stack-a");
        assertThat(row[3]).as("an env the restart does not name is unset").isNull();
        assertThat(row[4]).isEqualTo("second");
        assertThat(row[5]).as("stopped_at").isNull();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_mode_switch_changes_only_this_nodes_row(Vendor vendor) {
        TestJpa jpa = databases.jpa(vendor);
        NodeStore store = new NodeStore(jpa.vendor());
        String node = "node-" + UUID.randomUUID();
        String other = "node-" + UUID.randomUUID();
        jpa.run(em -> store.register(em, node, NodeMode.FULL, null, null, "host"));
        jpa.run(em -> store.register(em, other, NodeMode.FULL, null, null, "host"));

        jpa.run(em -> store.setMode(em, node, NodeMode.DISABLED));

        assertThat(row(jpa, node)[1]).isEqualTo(NodeMode.DISABLED.wireName());
        assertThat(row(jpa, other)[1]).isEqualTo(NodeMode.FULL.wireName());
    }

    private static Object[] row(TestJpa jpa, String node) {
        return jpa.inNewTransaction(em -> (Object[]) em.createNativeQuery("SELECT (SELECT COUNT(*) FROM cyclium_nodes"
                        + " WHERE node_identity = ?1), mode, stack_slug, env, host_info, stopped_at FROM cyclium_nodes"
                        + " WHERE node_identity = ?1")
                .setParameter(1, node).getSingleResult());
    }
}
