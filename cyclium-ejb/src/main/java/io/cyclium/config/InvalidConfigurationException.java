package io.cyclium.config;

import java.util.List;

/**
 * Thrown at boot when one or more {@code cyclium.*} properties are out of range. The message lists
 * every problem (property, offending value, what is allowed) so an operator fixes them in one go.
 */
public class InvalidConfigurationException extends RuntimeException {

    private final List<String> problems;

    public InvalidConfigurationException(List<String> problems) {
        super("Cyclium configuration is invalid:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
