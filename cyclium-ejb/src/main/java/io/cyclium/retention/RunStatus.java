package io.cyclium.retention;

import java.util.Locale;

/** Status of a retention run or one of its steps, as stored. */
public enum RunStatus {
    PENDING, RUNNING, COMPLETED, FAILED, SKIPPED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
