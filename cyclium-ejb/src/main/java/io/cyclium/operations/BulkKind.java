package io.cyclium.operations;

import io.cyclium.problem.Problem;
import java.util.Arrays;
import java.util.stream.Collectors;

/** What a bulk action does to each episode it targets; the wire name is the API's {@code action}. */
public enum BulkKind {
    /** {@link EpisodeService#cancel}: a running, queued or blocked episode; a finished one is skipped. */
    CANCEL("cancel"),
    /** The next attempt of a failed plain episode, now, through the retry path ({@code EpisodeRetries#retryNow}). */
    RETRY("retry"),
    /** {@link EpisodeService#restart}: a failed or canceled episode again from its latest checkpoint. */
    RESTART("restart"),
    /** Every failed output of the episode delivered again ({@code OutputRouter#retry}). */
    OUTPUT_RETRY("output-retry");

    private final String wire;

    BulkKind(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The kind named {@code raw}; anything else is a 400 naming {@code action} and the allowed values. */
    public static BulkKind parse(String raw) {
        return Arrays.stream(values()).filter(k -> k.wire.equals(raw)).findFirst()
                .orElseThrow(() -> Problem.invalid("action", raw == null || raw.isBlank() ? "action is required: one of " + names()
                        : "action \"" + EpisodeFilter.shorten(raw) + "\" is not one of " + names()));
    }

    static String names() {
        return Arrays.stream(values()).map(BulkKind::wire).collect(Collectors.joining(", "));
    }
}
