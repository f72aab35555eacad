package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A bad configuration value stops the deployment with a message naming property, value and range. */
class BadConfigurationIT {

    @Test
    void a_negative_lease_fails_the_deployment_naming_the_property_and_the_allowed_range() {
        assertThatThrownBy(() -> ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .node("node-bad", Map.of("CYCLIUM_WORK_CLAIMS_LEASE_SECONDS", "-5", "CYCLIUM_MODE", "turbo"))
                .start()
                .close())
                .hasMessageContaining("cyclium.work-claims.lease-seconds = -5 is out of range: allowed are 3 to 86400 seconds")
                .hasMessageContaining("cyclium.mode = \"turbo\" is not a mode: allowed are full | trigger_only | disabled");
    }
}
