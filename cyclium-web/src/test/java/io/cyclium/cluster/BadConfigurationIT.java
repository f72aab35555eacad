package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A bad configuration value stops the deployment with a message naming property, value and range. */
class BadConfigurationIT {

    @Test
    void a_negative_lease_fails_the_deployment_naming_the_property_and_the_allowed_range() {
        assertThatThrownBy(() -> ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .node("node-bad", Map.of("CYCLIUM_WORK_CLAIMS_LEASE_SECONDS", "-5", "CYCLIUM_MODE", "turbo",
                        "CYCLIUM_RETENTION_ARCHIVE_AFTER", "PT5M", "CYCLIUM_RETENTION_CATCH_UP", "PT90S"))
                .start()
                .close())
                .hasMessageContaining("cyclium.work-claims.lease-seconds = -5 is out of range: allowed are 3 to 86400 seconds")
                .hasMessageContaining("cyclium.mode = \"turbo\" is not a mode: allowed are full | trigger_only | disabled")
                .hasMessageContaining("cyclium.retention.archive-after = PT5M is out of range: allowed are ISO-8601 durations from PT1H")
                .hasMessageContaining("cyclium.retention.catch-up = PT90S is not a whole number of seconds under a minute or of minutes");
    }
}
