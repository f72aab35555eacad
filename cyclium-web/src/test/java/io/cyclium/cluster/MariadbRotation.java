package io.cyclium.cluster;

import io.cyclium.rotation.CommitRotation;
import io.cyclium.rotation.CommitRotation.Selection;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Which MariaDB runs of the cluster suite's scenarios run in this build: each class that extends
 * with this condition is the MariaDB twin of a PostgreSQL class that always runs (same scenario,
 * same nodes). {@code -Dcyclium.cluster.rotation=rotation} (the web module's default, so CI's) runs
 * one slot of {@link #SLOTS} ({@link CommitRotation}, by the checkout's commit count), so
 * successive landings go round all of them; {@code all} (the default outside Maven) runs every
 * one, {@code slot:N} one slot. Disabled at the class, so a skipped twin starts no cluster. The
 * SQL of every guard still runs on MariaDB in every build: the runtime module's tests run each on
 * H2, PostgreSQL and MariaDB (docs/testing.md, CI budget).
 *
 * <p>A class with this condition missing from {@link #SLOTS} fails under rotation, so a new twin
 * cannot quietly never run in CI.
 */
public final class MariadbRotation implements ExecutionCondition {

    /** About three minutes each: the chaos suite's MariaDB runs alone, the others in twos and threes. */
    static final List<List<String>> SLOTS = List.of(
            List.of("ChaosIT.OnMariadb"),
            List.of("ClusterFailoverIT.OnMariadb", "ConcurrencyLimitClusterIT.OnMariadb"),
            List.of("WorkflowClusterIT.OnMariadb", "ClusterDedupeIT.OnMariadb", "RetentionClusterIT.OnMariadb"));

    private static volatile Selection selection;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            return ConditionEvaluationResult.enabled("decided for its class");
        }
        String twin = name(context.getRequiredTestClass());
        return selection().decide(twin, "MariadbRotation.SLOTS", "cyclium.cluster.rotation");
    }

    /** "ChaosIT.OnMariadb": the nested class and the one it is in. */
    static String name(Class<?> type) {
        return type.getEnclosingClass() == null ? type.getSimpleName()
                : type.getEnclosingClass().getSimpleName() + "." + type.getSimpleName();
    }

    private static Selection selection() {
        Selection chosen = selection;
        if (chosen == null) {
            synchronized (MariadbRotation.class) {
                if (selection == null) {
                    selection = select(System.getProperty("cyclium.cluster.rotation", "all"));
                    System.out.println("[rotation] MariaDB cluster runs, " + selection.describe());
                }
                chosen = selection;
            }
        }
        return chosen;
    }

    static Selection select(String mode) {
        return CommitRotation.select("cyclium.cluster.rotation", SLOTS, mode, () -> CommitRotation.commitCount(Path.of("")));
    }
}
