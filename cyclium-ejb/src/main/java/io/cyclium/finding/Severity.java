package io.cyclium.finding;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Finding severity, ordered: low &lt; medium &lt; high &lt; critical. */
public enum Severity {
    LOW, MEDIUM, HIGH, CRITICAL;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Severity> parse(String raw) {
        if (raw == null) {
            return Optional.empty();
        }
        return Arrays.stream(values()).filter(s -> s.name().equalsIgnoreCase(raw.trim())).findFirst();
    }
}
