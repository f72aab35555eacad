package io.cyclium.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * libfaketime (Debian package {@code faketime}; {@code .ci/run} installs it): the environment that
 * runs a child process with its wall clock shifted. The monotonic clock moves by the same constant
 * (libfaketime's default): with {@code FAKETIME_DONT_FAKE_MONOTONIC=1} the JVM's timed waits
 * return at once.
 */
public final class FakeTime {

    private FakeTime() {
    }

    /** The preload library, or a clear error naming the package to install. */
    public static Path library() {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            return dirs.map(d -> d.resolve("faketime/libfaketime.so.1")).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "libfaketime is not installed: apt-get install -y faketime (.ci/run does it)"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Environment for a process whose wall clock runs {@code offsetSeconds} ahead (negative: behind). */
    public static Map<String, String> shiftedBy(long offsetSeconds) {
        return Map.of("LD_PRELOAD", library().toString(),
                "FAKETIME", (offsetSeconds >= 0 ? "+" : "") + offsetSeconds + "s");
    }
}
