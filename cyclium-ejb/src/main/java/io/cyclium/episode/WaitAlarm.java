package io.cyclium.episode;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When this node next runs the due pass of durable sleeps and wait timeouts, so that a sleep ends
 * at its due time (plus the pass) instead of at the next recovery sweep — and an idle node
 * sends no statement for it.
 *
 * <p>Three sources set it, each with the earliest due time it knows: an episode of this node that
 * blocks with a due time ({@link #wake}, after its commit); the due pass itself, whose one grouped
 * read also says when the next sleeper of the node's env is due; and the workflow timer's pulse,
 * which carries the earliest due time of the whole cluster (so a sleeper stored by a node that
 * died is woken by another node at most one pulse late, not one sweep late). The alarm holds only
 * the earliest time; a later one heard meanwhile is not lost, because the pass that the earlier
 * one starts reads the next due time again. The node's due-wake timer listens ({@link #onEarlier})
 * and schedules the pass for exactly the earliest time.
 *
 * <p>Only a hint: the wait row's guarded DELETE still decides who wakes an episode, so ringing
 * early or on two nodes costs a read, never a second wake. {@link #ringing} turns the alarm off
 * as it answers yes, so a time heard while the pass runs arms it again.
 */
@ApplicationScoped
public class WaitAlarm {

    private final LongSupplier nanos;
    // nanoTime values may be negative and are compared by difference only; "none due" is a flag
    private boolean armed;
    private long dueAt;
    /** Told (outside the lock) each time the alarm is set earlier, or set while off; null: nobody. */
    private volatile Runnable onEarlier;

    public WaitAlarm() {
        this(System::nanoTime);
    }

    public WaitAlarm(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** Something is due {@code in} from now (negative or zero: now); null: nothing. */
    public void wake(Duration in) {
        if (in == null) {
            return;
        }
        boolean earlier;
        synchronized (this) {
            long at = nanos.getAsLong() + Math.max(0, in.toNanos());
            earlier = !armed || at - dueAt < 0;
            if (earlier) {
                dueAt = at;
                armed = true;
            }
        }
        // outside the lock: the listener takes its own lock and then reads this alarm (one lock order)
        Runnable listener = onEarlier;
        if (earlier && listener != null) {
            listener.run();
        }
    }

    /**
     * {@code listener} is run after each {@link #wake} that set the alarm earlier (or set it while
     * off), on the waking thread: how the node's due-wake timer re-schedules for the new time
     * instead of polling. It reads the time from {@link #dueIn}, so two wakes racing each other
     * both leave it with the earlier one. Null: nobody listens.
     */
    public void onEarlier(Runnable listener) {
        this.onEarlier = listener;
    }

    /** Whether the due pass is to run now; yes turns the alarm off (the pass sets it again). */
    public synchronized boolean ringing() {
        if (armed && nanos.getAsLong() - dueAt >= 0) {
            armed = false;
            return true;
        }
        return false;
    }

    /** How long until it rings (empty: off). For the log and tests. */
    public synchronized Optional<Duration> dueIn() {
        return armed ? Optional.of(Duration.ofNanos(Math.max(0, dueAt - nanos.getAsLong()))) : Optional.empty();
    }
}
