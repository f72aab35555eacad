package io.cyclium.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * libfaketime (Debian package {@code faketime}; {@code .ci/run} installs it) for a node process:
 * its wall clock — {@code System.currentTimeMillis()}, {@code Instant.now()}, its log stamps — runs
 * shifted, while the database's clock is untouched. The monotonic clock moves by the same constant
 * (libfaketime's default), which keeps relative waits right. Measured here: with
 * {@code FAKETIME_DONT_FAKE_MONOTONIC=1} every timed wait of the JVM returned at once
 * ({@code Object.wait(200)} after 0 ms) and a Payara Micro node took over four minutes to boot.
 */
final class FakeTime {

    private FakeTime() {
    }

    /** Environment for a node whose wall clock runs {@code offsetSeconds} ahead (negative: behind). */
    static Map<String, String> shiftedBy(long offsetSeconds) {
        Path library;
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            library = dirs.map(d -> d.resolve("faketime/libfaketime.so.1")).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "libfaketime is not installed: apt-get install -y faketime (.ci/run does it)"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("LD_PRELOAD", library.toString(),
                "FAKETIME", (offsetSeconds >= 0 ? "+" : "") + offsetSeconds + "s");
    }
}
