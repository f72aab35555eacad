package io.cyclium.episode;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Episode statuses as stored. Terminal ones never change again, except by archival and by an
 * operator's restart of a failed or canceled episode ({@link EpisodeStore#restart}).
 */
public enum EpisodeStatus {
    RUNNING, BLOCKED, DONE, PARTIALLY_FAILED, FAILED, CANCELED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean terminal() {
        return this == DONE || this == PARTIALLY_FAILED || this == FAILED || this == CANCELED;
    }

    public static Optional<EpisodeStatus> parse(String raw) {
        return raw == null ? Optional.empty()
                : Arrays.stream(values()).filter(s -> s.wire().equals(raw.trim().toLowerCase(Locale.ROOT))).findFirst();
    }
}
