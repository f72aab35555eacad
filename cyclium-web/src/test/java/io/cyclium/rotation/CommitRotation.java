package io.cyclium.rotation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;

/**
 * Runs one slot of a list of expensive tests per build, chosen by the number of commits in the
 * checkout: successive runs of successive commits go round every slot, a rerun of the same commit
 * runs the same slot. A system property names the mode: {@code rotation} (the Maven build's
 * default, so CI's), {@code all} (the default outside Maven) or {@code slot:N}. Used where CI's
 * 45-minute budget has no room for every case on every commit (docs/testing.md, CI budget): the
 * server matrix and the MariaDB runs of the cluster suite.
 */
public final class CommitRotation {

    private CommitRotation() {
    }

    /** What this run runs: every slot, or one, and why that one. */
    public record Selection(List<List<String>> slots, Optional<Integer> slot, String why) {

        public boolean runs(String test) {
            return slot.isEmpty() || slots.get(slot.get()).contains(test);
        }

        public boolean slotted(String test) {
            return slots.stream().anyMatch(s -> s.contains(test));
        }

        /**
         * Whether {@code test} runs in this build, as a JUnit condition; a test that rotates but is
         * in no slot is an error naming {@code slotsField}, so it cannot quietly never run in CI.
         */
        public ConditionEvaluationResult decide(String test, String slotsField, String property) {
            if (slot.isPresent() && !slotted(test)) {
                throw new IllegalStateException(test + " rotates but is in no slot of " + slotsField + ": add it to one");
            }
            return runs(test) ? ConditionEvaluationResult.enabled(test + " runs: " + why)
                    : ConditionEvaluationResult.disabled(test + " is not in this run's rotation slot (" + why + "; -D" + property
                            + "=all runs every one)");
        }

        /** The tests this run runs, for its log line. */
        public String describe() {
            return why + ": " + slot.map(s -> String.join(", ", slots.get(s))).orElse("every one");
        }
    }

    /** The selection {@code mode} (the value of {@code property}) means; a value it cannot read is an error naming it. */
    public static Selection select(String property, List<List<String>> slots, String mode, Supplier<Optional<Long>> commits) {
        String value = mode.trim();
        if (value.equals("all")) {
            return new Selection(slots, Optional.empty(), property + "=all");
        }
        if (value.equals("rotation")) {
            Optional<Long> count = commits.get();
            long turn = count.orElseGet(() -> (long) LocalDate.now(ZoneOffset.UTC).getDayOfYear());
            int slot = (int) (turn % slots.size());
            return new Selection(slots, Optional.of(slot), property + "=rotation, slot " + slot + " of " + slots.size() + " ("
                    + count.map(c -> c + " commits").orElse("no git history: day " + turn + " of the year") + ")");
        }
        if (value.startsWith("slot:")) {
            String number = value.substring("slot:".length());
            try {
                int slot = Integer.parseInt(number);
                if (slot >= 0 && slot < slots.size()) {
                    return new Selection(slots, Optional.of(slot), property + "=" + value);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(property + "=" + mode + ": the slot must be a number from 0 to " + (slots.size() - 1));
        }
        throw new IllegalArgumentException(property + "=" + mode + ": expected all, rotation or slot:N");
    }

    /** Commits of the git checkout holding {@code directory} (empty where that is not a git clone). */
    public static Optional<Long> commitCount(Path directory) {
        try {
            Process git = new ProcessBuilder("git", "-C", directory.toAbsolutePath().toString(), "rev-list", "--count", "HEAD")
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0 && out.matches("\\d+")) {
                return Optional.of(Long.parseLong(out));
            }
            System.out.println("[rotation] git rev-list in " + directory + " said: " + out);
        } catch (IOException e) {
            System.out.println("[rotation] no git for the rotation: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }
}
