package io.cyclium.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.CycliumConfigReader;
import io.cyclium.config.InvalidConfigurationException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeIdentityTest {

    private static CycliumConfig config(Map<String, String> values) {
        return CycliumConfigReader.read(p -> Optional.ofNullable(values.get(p)));
    }

    @Test
    void the_configured_identity_wins_over_a_host_provider() {
        String name = NodeIdentity.resolve(config(Map.of("cyclium.node-identity", "node-7")), () -> "from-bean");
        assertThat(name).isEqualTo("node-7");
    }

    @Test
    void a_host_provider_is_used_when_nothing_is_configured() {
        assertThat(NodeIdentity.resolve(config(Map.of()), () -> "pod-abc-1")).isEqualTo("pod-abc-1");
    }

    @Test
    void a_malformed_identity_from_a_host_provider_fails_naming_the_provider() {
        NodeIdentityProvider bad = () -> "has space";
        assertThatThrownBy(() -> NodeIdentity.resolve(config(Map.of()), bad))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("NodeIdentityProvider")
                .hasMessageContaining("\"has space\" is not a valid node identity");
    }

    @Test
    void the_minted_identity_is_stable_for_the_life_of_the_jvm_and_names_no_host() {
        String first = NodeIdentity.resolve(config(Map.of()), null);
        String second = NodeIdentity.resolve(config(Map.of()), null);
        assertThat(first).isEqualTo(second).matches("node-" + ProcessHandle.current().pid() + "-[0-9a-f]{8}");
    }
}
