package io.cyclium.execution;

import io.cyclium.claims.ClaimGate;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeProgressed;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.WaitStore;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.Tracing;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Everything an {@link EpisodeTask} uses, so the same loop runs in the container and in tests.
 *
 * @param writePatience how long a task tries one of its writes again while the database cannot be
 *                      reached before it gives the episode up to recovery ({@link WriteRetry}); zero: one try
 * @param tracing       spans of runs, steps, writes and deliveries ({@link Tracing#OFF}: none)
 * @param advancement   what a workflow step's terminal write also does in its transaction
 *                      ({@link StepAdvancement#NONE}: nothing, the terminal event does it after)
 * @param waits         the rows of sleeps, waits and kept signals (due times on the database clock)
 * @param heldSlots     the cluster-wide concurrency slots a terminal write gives back in its transaction
 */
public record TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims,
        ConvergeEffects effects, Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
        Consumer<EpisodeProgressed> progressed, Duration writePatience, Tracing tracing, StepAdvancement advancement,
        WaitStore waits, HeldSlots heldSlots) {

    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
            Consumer<EpisodeProgressed> progressed, Duration writePatience, Tracing tracing, StepAdvancement advancement,
            WaitStore waits) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed, writePatience, tracing,
                advancement, waits, HeldSlots.NONE);
    }

    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
            Consumer<EpisodeProgressed> progressed, Duration writePatience, Tracing tracing, StepAdvancement advancement) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed, writePatience, tracing,
                advancement, new WaitStore(store.vendor()));
    }

    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
            Consumer<EpisodeProgressed> progressed, Duration writePatience, Tracing tracing) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed, writePatience, tracing,
                StepAdvancement.NONE);
    }

    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
            Consumer<EpisodeProgressed> progressed, Duration writePatience) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed, writePatience, Tracing.OFF);
    }

    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry,
            Consumer<EpisodeProgressed> progressed) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed, Duration.ZERO);
    }

    /** The same environment with another patience for writes. */
    public TaskEnvironment withWritePatience(Duration patience) {
        return new TaskEnvironment(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed,
                patience, tracing, advancement, waits, heldSlots);
    }

    /** The same environment with spans. */
    public TaskEnvironment withTracing(Tracing other) {
        return new TaskEnvironment(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed,
                writePatience, other, advancement, waits, heldSlots);
    }

    /** The same environment whose workflow steps' terminal writes advance their instances with {@code other}. */
    public TaskEnvironment withAdvancement(StepAdvancement other) {
        return new TaskEnvironment(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed,
                writePatience, tracing, other, waits, heldSlots);
    }

    /** The same environment with another wait store (tests: due times on a test clock). */
    public TaskEnvironment withWaits(WaitStore other) {
        return new TaskEnvironment(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed,
                writePatience, tracing, advancement, other, heldSlots);
    }

    /** The same environment whose terminal writes give back the slots {@code other} says an episode holds. */
    public TaskEnvironment withHeldSlots(HeldSlots other) {
        return new TaskEnvironment(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progressed,
                writePatience, tracing, advancement, waits, other);
    }

    /** Without anyone told of journal rows as they are written (tests, tools). */
    public TaskEnvironment(Tx tx, EpisodeStore store, StrategyLookup strategies, ClaimGate claims, ConvergeEffects effects,
            Consumer<EpisodeFinished> finished, Clock clock, String node, Telemetry telemetry) {
        this(tx, store, strategies, claims, effects, finished, clock, node, telemetry, progress -> { });
    }
}
