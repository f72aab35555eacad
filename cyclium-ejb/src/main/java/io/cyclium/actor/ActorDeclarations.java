package io.cyclium.actor;

import io.cyclium.timing.CronSchedule;
import io.cyclium.timing.InvalidCronException;
import io.cyclium.timing.RetryPolicy;
import io.cyclium.timing.ScheduleBuckets;
import io.cyclium.episode.Budget;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads {@link Actor}/{@link Expectation} annotations into validated definitions. Every problem
 * found is reported with the class, actor and expectation it belongs to, so a deployment that
 * fails here says exactly what to fix.
 */
public final class ActorDeclarations {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    private ActorDeclarations() {
    }

    /** Validates one actor class; collects problems into {@code problems} and returns what it could read. */
    public static Optional<ActorDefinition> read(Class<?> beanClass, List<String> problems) {
        Actor actor = beanClass.getAnnotation(Actor.class);
        if (actor == null) {
            problems.add(beanClass.getName() + ": not annotated with @Actor");
            return Optional.empty();
        }
        String where = "actor \"" + actor.id() + "\" (" + beanClass.getName() + ")";
        int before = problems.size();
        if (!ID.matcher(actor.id()).matches()) {
            problems.add(where + ": id is not allowed: use 1-128 of letters, digits, '_', '-', '.', starting with a letter or digit");
        }
        if (actor.maxConcurrentEpisodes() < 0) {
            problems.add(where + ": maxConcurrentEpisodes = " + actor.maxConcurrentEpisodes() + " must be 0 (node default) or more");
        }
        Expectation[] declared = beanClass.getAnnotationsByType(Expectation.class);
        if (declared.length == 0) {
            problems.add(where + ": declares no @Expectation");
        }
        List<ExpectationDefinition> expectations = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Expectation e : declared) {
            String at = where + ", expectation \"" + e.id() + "\"";
            if (!seen.add(e.id())) {
                problems.add(at + ": duplicate expectation id");
                continue;
            }
            expectation(actor.id(), e, at, problems).ifPresent(expectations::add);
        }
        rate(where, actor.rateLimit(), actor.ratePeriodMs(), problems);
        if (actor.clusterMaxConcurrentEpisodes() < 0) {
            problems.add(where + ": clusterMaxConcurrentEpisodes = " + actor.clusterMaxConcurrentEpisodes()
                    + " must be 0 (no cluster-wide limit) or more");
        }
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new ActorDefinition(actor.id(), beanClass, actor.maxConcurrentEpisodes(), actor.overflow(),
                new LinkedHashSet<>(Arrays.asList(actor.stacks())), actor.specRev().isBlank() ? null : actor.specRev(),
                List.copyOf(expectations), actor.clusterMaxConcurrentEpisodes(), actor.rateLimit(),
                Duration.ofMillis(actor.ratePeriodMs())));
    }

    /** Validates a set of actor classes together (ids must be unique across them). */
    public static List<ActorDefinition> readAll(Iterable<Class<?>> classes, List<String> problems) {
        List<ActorDefinition> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Class<?> c : classes) {
            read(c, problems).ifPresent(def -> {
                if (!ids.add(def.id())) {
                    problems.add("actor \"" + def.id() + "\" (" + c.getName() + "): duplicate actor id");
                } else {
                    out.add(def);
                }
            });
        }
        return out;
    }

    private static Optional<ExpectationDefinition> expectation(String actorId, Expectation e, String at, List<String> problems) {
        int before = problems.size();
        if (!ID.matcher(e.id()).matches()) {
            problems.add(at + ": id is not allowed: use 1-128 of letters, digits, '_', '-', '.', starting with a letter or digit");
        }
        if (e.strategy().isInterface() || java.lang.reflect.Modifier.isAbstract(e.strategy().getModifiers())) {
            problems.add(at + ": strategy " + e.strategy().getName() + " is not a concrete class");
        }
        List<EventTrigger> events = new ArrayList<>();
        for (OnEvent on : e.events()) {
            if (on.type().isBlank()) {
                problems.add(at + ": an @OnEvent has a blank type");
                continue;
            }
            try {
                events.add(new EventTrigger(on.type(), PayloadFilter.parse(on.filter())));
            } catch (IllegalArgumentException ex) {
                problems.add(at + ": event \"" + on.type() + "\" filter: " + ex.getMessage());
            }
        }
        Optional<ScheduleBuckets> every = Optional.empty();
        if (!e.every().isBlank()) {
            try {
                every = Optional.of(ScheduleBuckets.every(Duration.parse(e.every())));
            } catch (DateTimeParseException ex) {
                problems.add(at + ": every = \"" + e.every() + "\" is not an ISO-8601 duration such as PT15M, PT1H or P1D");
            } catch (IllegalArgumentException ex) {
                problems.add(at + ": every = \"" + e.every() + "\": " + ex.getMessage());
            }
        }
        Optional<CronSchedule> cron = Optional.empty();
        if (!e.cron().isBlank()) {
            try {
                CronSchedule parsed = CronSchedule.parse(e.cron());
                // A cron that parses but names a date that never occurs ("0 0 30 2 *") would deploy and
                // then arm no timer at all; nextAfter throws for it, so ask once here and fail the deploy.
                parsed.nextAfter(Instant.EPOCH);
                cron = Optional.of(parsed);
            } catch (InvalidCronException ex) {
                problems.add(at + ": " + ex.getMessage());
            }
        }
        if (events.isEmpty() && every.isEmpty() && cron.isEmpty() && !e.manual() && e.events().length == 0) {
            problems.add(at + ": has no trigger (no events, schedule, cron, and manual = false)");
        }
        nonNegative(at, "debounceMs", e.debounceMs(), problems);
        nonNegative(at, "cooldownMs", e.cooldownMs(), problems);
        nonNegative(at, "findingTtlSeconds", e.findingTtlSeconds(), problems);
        if (e.maxAttempts() < 1) {
            problems.add(at + ": maxAttempts = " + e.maxAttempts() + " must be at least 1");
        }
        if (e.maxSteps() < 1) {
            problems.add(at + ": maxSteps = " + e.maxSteps() + " must be at least 1");
        }
        if (e.maxWallMs() < 1) {
            problems.add(at + ": maxWallMs = " + e.maxWallMs() + " must be at least 1");
        }
        if (e.circuitBreakerThreshold() < 0) {
            problems.add(at + ": circuitBreakerThreshold = " + e.circuitBreakerThreshold() + " must be 0 (off) or more");
        }
        if (e.circuitBreakerThreshold() > 0 && e.circuitBreakerHalfOpenAfterMs() < 1) {
            problems.add(at + ": circuitBreakerHalfOpenAfterMs must be at least 1");
        }
        if (!e.version().isEmpty() && !e.version().matches("[A-Za-z0-9_.-]{1,64}")) {
            problems.add(at + ": version \"" + e.version() + "\" must be 1 to 64 letters, digits, '_', '-' or '.'");
        }
        Retry r = e.retry();
        if (r.maxAttempts() < 1) {
            problems.add(at + ": retry.maxAttempts = " + r.maxAttempts() + " must be at least 1");
        }
        nonNegative(at, "retry.initialDelayMs", r.initialDelayMs(), problems);
        nonNegative(at, "retry.maxDelayMs", r.maxDelayMs(), problems);
        if (!(r.multiplier() >= 1.0)) {
            problems.add(at + ": retry.multiplier = " + r.multiplier() + " must be at least 1");
        }
        if (!(r.jitter() >= 0.0 && r.jitter() <= 1.0)) {
            problems.add(at + ": retry.jitter = " + r.jitter() + " must be between 0 and 1");
        }
        boolean byFunction = e.concurrencyKeyFunction() != ConcurrencyKeyFunction.class;
        boolean byPath = !e.concurrencyKey().isBlank();
        boolean keyed = byPath || byFunction;
        String keyName = byFunction ? "concurrencyKeyFunction = " + e.concurrencyKeyFunction().getSimpleName()
                : "concurrencyKey = \"" + e.concurrencyKey() + "\"";
        if (byPath && byFunction) {
            problems.add(at + ": concurrencyKey and concurrencyKeyFunction are both set; the key comes from one of them");
        }
        if (byFunction && (e.concurrencyKeyFunction().isInterface()
                || java.lang.reflect.Modifier.isAbstract(e.concurrencyKeyFunction().getModifiers()))) {
            problems.add(at + ": concurrencyKeyFunction = " + e.concurrencyKeyFunction().getName()
                    + " must be a class implementing ConcurrencyKeyFunction (a CDI bean), not an interface or abstract class");
        }
        if (keyed && e.concurrencyLimit() < 1 && !(e.concurrencyLimit() == 0 && e.rateLimitPerKey())) {
            problems.add(at + ": " + keyName + " needs concurrencyLimit of at least 1, not " + e.concurrencyLimit()
                    + (e.concurrencyLimit() == 0 ? " (or rateLimitPerKey = true with a rateLimit, for a key that only rates)" : ""));
        }
        if (!keyed && e.concurrencyLimit() != 0) {
            problems.add(at + ": concurrencyLimit = " + e.concurrencyLimit() + " needs a concurrencyKey (the payload field"
                    + " whose value the limit is per) or a concurrencyKeyFunction");
        }
        if (e.rateLimitPerKey() && (!keyed || e.rateLimit() < 1)) {
            problems.add(at + ": rateLimitPerKey = true needs " + (keyed ? "a rateLimit of at least 1" : "a concurrencyKey"
                    + " or concurrencyKeyFunction (the value each bucket is per)" + (e.rateLimit() < 1 ? " and a rateLimit of at least 1" : "")));
        }
        fieldPath(at, "concurrencyKey", e.concurrencyKey(), problems);
        rate(at, e.rateLimit(), e.ratePeriodMs(), problems);
        fieldPath(at, "priorityField", e.priorityField(), problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        RetryPolicy retry = r.maxAttempts() == 1 ? RetryPolicy.NONE : RetryPolicy.of(r.maxAttempts(), r.initialDelayMs(), r.multiplier(), r.maxDelayMs(), r.jitter(),
                r.nonRetryable());
        return Optional.of(new ExpectationDefinition(actorId, e.id(), e.strategy(), List.copyOf(events), every, cron,
                e.manual(), Duration.ofMillis(e.debounceMs()), Duration.ofMillis(e.cooldownMs()),
                e.subjectKey().isBlank() ? null : e.subjectKey(), e.recovery(), e.maxAttempts(),
                new Budget(e.maxSteps(), Duration.ofMillis(e.maxWallMs())), e.circuitBreakerThreshold(),
                Duration.ofMillis(e.circuitBreakerHalfOpenAfterMs()),
                e.findingTtlSeconds() == 0 ? null : Duration.ofSeconds(e.findingTtlSeconds()), retry,
                e.version().isEmpty() ? null : e.version(),
                new FlowControl(e.concurrencyKey(), e.concurrencyLimit(), e.priority(), e.priorityField(), e.rateLimit(),
                        Duration.ofMillis(e.ratePeriodMs()), e.rateLimitPerKey(),
                        byFunction ? e.concurrencyKeyFunction() : null)));
    }

    private static void rate(String at, int limit, long periodMs, List<String> problems) {
        if (limit < 0) {
            problems.add(at + ": rateLimit = " + limit + " must be 0 (none) or more");
        }
        if (limit > 0 && periodMs < 1) {
            problems.add(at + ": ratePeriodMs = " + periodMs + " must be at least 1");
        }
    }

    private static void fieldPath(String at, String name, String path, List<String> problems) {
        if (!path.isBlank() && !FlowControl.isFieldPath(path)) {
            problems.add(at + ": " + name + " = \"" + path + "\" is not a payload field path: allowed are dotted names"
                    + " such as tenant or $.order.region");
        }
    }

    private static void nonNegative(String at, String name, long value, List<String> problems) {
        if (value < 0) {
            problems.add(at + ": " + name + " = " + value + " must be 0 or more");
        }
    }
}
