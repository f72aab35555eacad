package io.cyclium.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What a node does with the episodes its actors trigger. */
public enum NodeMode {
    /** Run episodes locally and poll deferred trigger requests. */
    FULL,
    /** Create episode rows but defer execution to a full node through a trigger request. */
    TRIGGER_ONLY,
    /** Start no actors at all. */
    DISABLED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<NodeMode> parse(String raw) {
        if (raw == null) {
            return Optional.empty();
        }
        String normalized = raw.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        return Arrays.stream(values()).filter(m -> m.name().equals(normalized)).findFirst();
    }

    public static String allowed() {
        return "full | trigger_only | disabled";
    }
}
