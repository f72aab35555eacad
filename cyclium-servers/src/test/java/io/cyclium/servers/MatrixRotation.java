package io.cyclium.servers;

import io.cyclium.rotation.CommitRotation;
import io.cyclium.rotation.CommitRotation.Selection;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Which "matrix" tests of the server matrix run. {@code -Dcyclium.matrix=rotation} (the build's
 * default, so CI's) runs one slot of {@link #SLOTS} ({@link CommitRotation}: chosen by the number of
 * commits in the checkout, so successive runs of successive commits go round the whole matrix), and
 * every run also runs the "ci" cells, which this condition never touches. {@code all} (the default
 * outside Maven) runs every one; {@code slot:N} runs slot N. One slot adds three cells, about three
 * minutes, where the whole matrix adds about ten, which CI's 45-minute budget no longer has room
 * for (docs/testing.md, CI budget).
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

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty() || !context.getTags().contains("matrix")) {
            return ConditionEvaluationResult.enabled("not a matrix cell");
        }
        String test = context.getRequiredTestClass().getSimpleName() + "#" + context.getRequiredTestMethod().getName();
        return selection().decide(test, "MatrixRotation.SLOTS", "cyclium.matrix");
    }

    private static Selection selection() {
        Selection chosen = selection;
        if (chosen == null) {
            synchronized (MatrixRotation.class) {
                if (selection == null) {
                    selection = select(System.getProperty("cyclium.matrix", "all"), MatrixRotation::commitCount);
                    System.out.println("[matrix] " + selection.describe());
                }
                chosen = selection;
            }
        }
        return chosen;
    }

    /** The selection a value of {@code cyclium.matrix} means; a value it cannot read is an error naming it. */
    static Selection select(String mode, java.util.function.Supplier<Optional<Long>> commits) {
        return CommitRotation.select("cyclium.matrix", SLOTS, mode, commits);
    }

    /** Commits in the checkout holding server-config (empty where that is not a git clone). */
    private static Optional<Long> commitCount() {
        return CommitRotation.commitCount(Path.of(System.getProperty("cyclium.config.dir", "../server-config")));
    }
}
