package io.cyclium.testing;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.CycliumConfigReader;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** A validated {@link CycliumConfig} from property/value pairs, the shipped defaults for the rest. */
public final class TestConfig {

    private TestConfig() {
    }

    public static CycliumConfig of(String... propertyValuePairs) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < propertyValuePairs.length; i += 2) {
            values.put(propertyValuePairs[i], propertyValuePairs[i + 1]);
        }
        return CycliumConfigReader.read(p -> Optional.ofNullable(values.get(p)));
    }
}
