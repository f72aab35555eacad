package io.cyclium.workflow;

import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The engine's view of one step episode's terminal write: every "transaction" the engine asks for
 * is a run of statements in that write's transaction ({@code em}), and every effect outside the
 * database — a metric, asking another step's episode to stop, waking the retry timer — waits in a
 * list for {@link #committed}, which the terminal write calls once it committed. A run that does not
 * commit (a failed group-commit batch runs its writes again, each with a new InCommit) leaves none
 * of them behind. Episodes stored by the launcher join the same transaction on their own and start
 * only once it committed (the runtime's insert registers for its outcome).
 */
final class InCommit implements Tx {

    private static final Logger LOG = Logger.getLogger(InCommit.class.getName());

    private final EntityManager em;
    private final List<Runnable> afterCommit = new ArrayList<>();

    InCommit(EntityManager em) {
        this.em = em;
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return work.apply(em);
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work, Consumer<Boolean> settled) {
        throw new IllegalStateException("the engine starts no instance inside a step's terminal write");
    }

    @Override
    public <T> T inGroupTransaction(Function<EntityManager, T> work) {
        // no retry here: a deadlock victim is the whole terminal write, which its caller runs again
        return work.apply(em);
    }

    @Override
    public boolean callerHasTransaction() {
        return true;
    }

    /** Runs {@code action} once the terminal write committed. */
    void after(Runnable action) {
        afterCommit.add(action);
    }

    /** The terminal write committed: what waited for it runs now, each on its own (one failing does not stop the rest). */
    void committed() {
        for (Runnable action : afterCommit) {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "An action after a step's terminal write failed", e);
            }
        }
        afterCommit.clear();
    }

    /** Metrics counted only once the write committed (a rerun would count them twice). */
    Telemetry telemetry(Telemetry real) {
        return new Telemetry() {
            @Override
            public void count(String name, String... tags) {
                after(() -> real.count(name, tags));
            }

            @Override
            public void time(String name, Duration duration, String... tags) {
                after(() -> real.time(name, duration, tags));
            }

            @Override
            public void record(String name, long value, String... tags) {
                after(() -> real.record(name, value, tags));
            }

            @Override
            public void gauge(String name, LongSupplier value, String... tags) {
                real.gauge(name, value, tags);
            }
        };
    }

    /** Launches in the terminal write's transaction; cancels of other steps' episodes once it committed. */
    StepLauncher launcher(StepLauncher real) {
        return new StepLauncher() {
            @Override
            public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
                    JsonObject input, String stack, String env) {
                return real.launch(em, step, instanceId, attempt, dedupeKey, input, stack, env);
            }

            @Override
            public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
                    JsonObject input, String stack, String env, String traceParent) {
                return real.launch(em, step, instanceId, attempt, dedupeKey, input, stack, env, traceParent);
            }

            @Override
            public Launch launch(EntityManager em, String workflowId, StepDefinition step, String instanceId, int attempt,
                    String dedupeKey, JsonObject input, String stack, String env, String traceParent) {
                return real.launch(em, workflowId, step, instanceId, attempt, dedupeKey, input, stack, env, traceParent);
            }

            @Override
            public void cancel(String episodeId) {
                after(() -> real.cancel(episodeId));
            }
        };
    }
}
