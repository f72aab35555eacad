package io.cyclium.recovery;

/** What one sweep did. */
public record SweepReport(int found, int restarted, int failed, int skipped, String stack, String env) {
}
