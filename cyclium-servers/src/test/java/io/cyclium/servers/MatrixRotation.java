package io.cyclium.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Which "matrix" tests of the server matrix run. {@code -Dcyclium.matrix=rotation} (the build's
 * default, so CI's) runs one slot of {@link #SLOTS}, chosen by the number of commits in the
 * checkout: successive runs of successive commits go round the whole matrix, a rerun of the same
 * commit runs the same cells, and every run also runs the "ci" cells, which this condition never
 * touches. {@code all} (the default outside Maven) runs every one; {@code slot:N} runs slot N. One
 * slot adds three cells, about three minutes, where the whole matrix adds about ten, which
 * CI's 45-minute budget no longer has room for (docs/testing.md, CI budget).
 *
 * <p>A "matrix" test missing from {@link #SLOTS} fails under rotation, so a new cell cannot quietly
 * never run in CI.
 */
public final class MatrixRotation implements ExecutionCondition {

    /** Each slot mixes a heavy cell (Payara Server, or two servers) with lighter ones. */
    static final List<List<String>> SLOTS = List.of(
            List.of("EarSmokeIT#payara_server_on_h2", "TwoNodesIT#two_wildfly_servers_share_the_work_and_recover_each_other",
                    "ServerTracesIT#payara_server_exports_an_events_trace_through_its_microprofile_telemetry"),
            List.of("EarSmokeIT#payara_server_on_postgresql_with_users_from_its_realm", "EarSmokeIT#payara_micro_on_mariadb", "EarSmokeIT#wildfly_on_h2"),
            List.of("EarSmokeIT#payara_server_on_mariadb", "EarSmokeIT#payara_micro_on_postgresql",
                    "ServerTracesIT#wildfly_exports_an_events_trace_through_its_microprofile_telemetry"),
            List.of("TwoNodesIT#two_payara_servers_share_the_work_and_recover_each_other", "EarSmokeIT#wildfly_on_mariadb_with_users_from_its_realm",
                    "ServerOidcIT#payara_server_logs_in_through_keycloak_and_takes_its_tokens"));

    private static volatile Selection selection;

    /** What this run runs: every slot, or one, and why that one. */
    record Selection(Optional<Integer> slot, String why) {

        boolean runs(String test) {
            return slot.isEmpty() || SLOTS.get(slot.get()).contains(test);
        }
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty() || !context.getTags().contains("matrix")) {
            return ConditionEvaluationResult.enabled("not a matrix cell");
        }
        String test = context.getRequiredTestClass().getSimpleName() + "#" + context.getRequiredTestMethod().getName();
        Selection chosen = selection();
        if (chosen.slot().isPresent() && SLOTS.stream().noneMatch(slot -> slot.contains(test))) {
            throw new IllegalStateException(test + " is a matrix test in no slot of MatrixRotation.SLOTS: add it to one");
        }
        return chosen.runs(test)
                ? ConditionEvaluationResult.enabled(test + " runs: " + chosen.why())
                : ConditionEvaluationResult.disabled(test + " is not in this run's rotation slot (" + chosen.why()
                        + "; -Dcyclium.matrix=all runs every cell)");
    }

    private static Selection selection() {
        Selection chosen = selection;
        if (chosen == null) {
            synchronized (MatrixRotation.class) {
                if (selection == null) {
                    selection = select(System.getProperty("cyclium.matrix", "all"), MatrixRotation::commitCount);
                    System.out.println("[matrix] " + selection.why() + ": "
                            + selection.slot().map(s -> String.join(", ", SLOTS.get(s))).orElse("every cell"));
                }
                chosen = selection;
            }
        }
        return chosen;
    }

    /** The selection a value of {@code cyclium.matrix} means; a value it cannot read is an error naming it. */
    static Selection select(String mode, java.util.function.Supplier<Optional<Long>> commits) {
        String value = mode.trim();
        if (value.equals("all")) {
            return new Selection(Optional.empty(), "cyclium.matrix=all");
        }
        if (value.equals("rotation")) {
            Optional<Long> count = commits.get();
            long turn = count.orElseGet(() -> (long) LocalDate.now(ZoneOffset.UTC).getDayOfYear());
            int slot = (int) (turn % SLOTS.size());
            return new Selection(Optional.of(slot), "cyclium.matrix=rotation, slot " + slot + " of " + SLOTS.size() + " ("
                    + count.map(c -> c + " commits").orElse("no git history: day " + turn + " of the year") + ")");
        }
        if (value.startsWith("slot:")) {
            String number = value.substring("slot:".length());
            try {
                int slot = Integer.parseInt(number);
                if (slot >= 0 && slot < SLOTS.size()) {
                    return new Selection(Optional.of(slot), "cyclium.matrix=" + value);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("cyclium.matrix=" + mode + ": the slot must be a number from 0 to "
                    + (SLOTS.size() - 1));
        }
        throw new IllegalArgumentException("cyclium.matrix=" + mode + ": expected all, rotation or slot:N");
    }

    /** Commits in the checkout holding server-config (empty where that is not a git clone). */
    private static Optional<Long> commitCount() {
        Path checkout = Path.of(System.getProperty("cyclium.config.dir", "../server-config")).toAbsolutePath().getParent();
        try {
            Process git = new ProcessBuilder("git", "-C", checkout.toString(), "rev-list", "--count", "HEAD")
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0 && out.matches("\\d+")) {
                return Optional.of(Long.parseLong(out));
            }
            System.out.println("[matrix] git rev-list in " + checkout + " said: " + out);
        } catch (IOException e) {
            System.out.println("[matrix] no git for the rotation: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }
}
