package io.cyclium.execution;

import io.cyclium.episode.Step;
import io.cyclium.episode.WaitStore;
import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import java.time.Instant;

/**
 * What a sleep or wait step stores with its block: its name (the wait's reference, or "sleep"),
 * the key an event resolves it by, and its due time — {@code wakeInMillis} from now on the
 * database clock, or {@code wakeAt}, an instant; neither: no due time.
 */
record WaitSpec(boolean sleep, String name, String key, Long wakeInMillis, Instant wakeAt) {

    static WaitSpec of(Step.Wait w) {
        return new WaitSpec(false, w.reference(), w.key(), w.timeout() == null ? null : w.timeout().toMillis(), null);
    }

    static WaitSpec of(Step.Sleep s) {
        return new WaitSpec(true, WaitStore.SLEEP_REFERENCE, null, s.duration() == null ? null : s.duration().toMillis(),
                s.until());
    }

    /** How far off its due time is, by {@code clock} (null: none); a hint for the node's {@link io.cyclium.episode.WaitAlarm}. */
    java.time.Duration dueIn(java.time.Clock clock) {
        if (wakeInMillis != null) {
            return java.time.Duration.ofMillis(wakeInMillis);
        }
        return wakeAt == null ? null : java.time.Duration.between(clock.instant(), wakeAt);
    }

    /** The {@code wait_started} row's detail: what the console and a resolver read back. */
    JsonObject startedDetail() {
        var b = Jsons.object().add("reference", name);
        if (sleep) {
            b.add("sleep", true);
        }
        if (key != null) {
            b.add("key", key);
        }
        if (wakeInMillis != null) {
            b.add(sleep ? "sleepMs" : "timeoutMs", wakeInMillis);
        }
        if (wakeAt != null) {
            b.add("until", wakeAt.toString());
        }
        return b.build();
    }

    /** The {@code wait_resolved} row of a wait answered by a kept signal. */
    static JsonObject signalDetail(String name, WaitStore.KeptSignal signal) {
        return Jsons.object().add("reference", name).add("value", signal.payload()).add("signal", name)
                .add("by", signal.sentBy() == null ? "" : signal.sentBy())
                .add("sentAt", signal.sentAt() == null ? "" : signal.sentAt().toString()).build();
    }
}
