package io.cyclium.it.actors;

import io.cyclium.episode.Convergence;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.finding.FindingAction;
import io.cyclium.finding.Severity;
import io.cyclium.output.OutputProposal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Strategies of {@link ItActor}. Each state class is what gets checkpointed. */
public final class ItStrategies {

    /** init() calls per episode, to prove a resume does not start over. */
    public static final Map<String, AtomicInteger> INITS = new ConcurrentHashMap<>();

    private ItStrategies() {
    }

    public static class Counter {
        public int step;
        public String note;
        public JsonObject payload;
    }

    abstract static class Base implements Strategy<Counter> {
        @Override
        public Class<Counter> stateType() {
            return Counter.class;
        }

        @Override
        public Counter init(TriggerInfo trigger, StepContext context) {
            INITS.computeIfAbsent(context.episodeId(), k -> new AtomicInteger()).incrementAndGet();
            Counter c = new Counter();
            c.payload = trigger.payload();
            return c;
        }

        @Override
        public Counter onResult(Counter state, StepResult result, StepContext context) {
            state.step++;
            return state;
        }
    }

    /** observe the payload, then converge with a summary. */
    @ApplicationScoped
    public static class Echo extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return s.step == 0 ? Step.observe("payload", c -> s.payload) : Step.converge();
        }

        @Override
        public Convergence converge(Counter s, StepContext ctx) {
            return Convergence.of("echoed " + s.payload);
        }
    }

    /**
     * A workflow step that fails its first attempt (payload workflow.attempt 1) and finishes on the
     * next. Not a subclass of Echo: two beans of type Echo would make Echo ambiguous.
     */
    @ApplicationScoped
    public static class FlakyOnce extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            JsonObject wf = s.payload.getJsonObject("workflow");
            if (wf != null && wf.getInt("attempt", 1) == 1) {
                throw new IllegalStateException("fails its first attempt on purpose");
            }
            return Step.done("attempt " + (wf == null ? 1 : wf.getInt("attempt")) + " worked");
        }
    }

    /**
     * A plain episode (an event's, with a retry policy) that fails the first time its payload's
     * {@code token} is seen in this JVM and finishes on any later run: the retry of the failure.
     */
    @ApplicationScoped
    public static class FailsFirstTime extends Base {
        static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

        @Override
        public Step decide(Counter s, StepContext ctx) {
            String token = s.payload.getString("token", "");
            if (RUNS.computeIfAbsent(token, k -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("fails the first run of token " + token + " on purpose");
            }
            return Step.done("token " + token + " worked on run " + RUNS.get(token).get());
        }
    }

    /** Finishes at once (done path, no converge). */
    @ApplicationScoped
    public static class Tick extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return Step.done("tick at " + ctx.trigger().scheduledFor());
        }
    }

    /** observe → checkpoint → ask approval → (resume) converge with the step count it carried. */
    @ApplicationScoped
    public static class CheckpointThenApprove extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return switch (s.step) {
                case 0 -> Step.observe("before", c -> Json.createValue("seen"));
                case 1 -> Step.checkpoint("observed");
                case 2 -> Step.requestApproval(Json.createObjectBuilder().add("do", "the thing").add("n", 42).build());
                default -> Step.converge();
            };
        }

        @Override
        public Convergence converge(Counter s, StepContext ctx) {
            return Convergence.of("resumed with step " + s.step);
        }
    }

    /** Raises or clears the finding the payload names, optionally in another env. */
    @ApplicationScoped
    public static class FindingOp extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return Step.converge();
        }

        @Override
        public Convergence converge(Counter s, StepContext ctx) {
            String key = s.payload.getString("key");
            String env = s.payload.getString("env", null);
            FindingAction action = "clear".equals(s.payload.getString("op", "raise"))
                    ? new FindingAction.Clear(key, "test", env)
                    : FindingAction.raise(key, "it_class").withSeverity(Severity.HIGH).withSubject("thing", key).inEnv(env);
            return new Convergence(List.of(action), List.of(), s.payload.getString("op", "raise") + " " + key);
        }
    }

    /** Delivers one output with the explicit dedupe key the payload names. */
    @ApplicationScoped
    public static class OutputOnce extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return Step.converge();
        }

        @Override
        public Convergence converge(Counter s, StepContext ctx) {
            return new Convergence(List.of(), List.of(OutputProposal.withDedupeKey(CountingAdapter.TYPE,
                    s.payload.getString("dedupeKey"), s.payload)), "routed");
        }
    }

    /** Waits for an it.payment event whose waitKey is the payload's key (a minute at most), then finishes with it. */
    @ApplicationScoped
    public static class KeyedWaiter extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return s.step == 0 ? Step.waitFor("it.payment", java.time.Duration.ofMinutes(1)).keyed(s.payload.getString("key"))
                    : Step.done((s.note == null ? "timed out" : "resolved with " + s.note));
        }

        @Override
        public Counter onResult(Counter state, StepResult result, StepContext context) {
            state.note = result.timedOut() ? null : String.valueOf(result.value());
            return super.onResult(state, result, context);
        }
    }

    /** Waits for "ticket-42", then finishes with what resolved it. */
    @ApplicationScoped
    public static class Waiter extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return s.step == 0 ? Step.waitFor("ticket-42") : Step.done("resolved with " + s.note);
        }

        @Override
        public Counter onResult(Counter state, StepResult result, StepContext context) {
            state.note = String.valueOf(result.value());
            return super.onResult(state, result, context);
        }
    }

    /** Never converges: only a budget stops it. */
    @ApplicationScoped
    public static class Forever extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return Step.observe("again", c -> Json.createValue(s.step));
        }
    }

    /** Each step takes a while: cancel and wall-time tests. */
    @ApplicationScoped
    public static class Slow extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return Step.observe("slowly", c -> {
                Thread.sleep(150);
                return Json.createValue(s.step);
            });
        }
    }

    /** Lets go of every "hold" episode; they finish at their next step. */
    public static final java.util.concurrent.atomic.AtomicBoolean RELEASE_HOLDS = new java.util.concurrent.atomic.AtomicBoolean();

    /** Observes until {@link #RELEASE_HOLDS} is set (or 30 s pass), then converges: a slot kept busy on purpose. */
    @ApplicationScoped
    public static class Hold extends Base {
        @Override
        public Step decide(Counter s, StepContext ctx) {
            return RELEASE_HOLDS.get() || s.step > 40 ? Step.converge() : Step.observe("holding", c -> {
                Thread.sleep(500);
                return Json.createValue(s.step);
            });
        }

        @Override
        public Convergence converge(Counter s, StepContext ctx) {
            return Convergence.of("held for " + s.step + " steps");
        }
    }
}
