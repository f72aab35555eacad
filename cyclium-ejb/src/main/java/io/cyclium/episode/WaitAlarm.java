package io.cyclium.episode;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When this node next runs the due pass of durable sleeps and wait timeouts, so that a sleep ends
 * within about a tick of its due time instead of at the next recovery sweep — and an idle node
 * sends no statement for it.
 *
 * <p>Three sources set it, each with the earliest due time it knows: an episode of this node that
 * blocks with a due time ({@link #wake}, after its commit); the due pass itself, whose one grouped
 * read also says when the next sleeper of the node's env is due; and the workflow timer's pulse,
 * which carries the earliest due time of the whole cluster (so a sleeper stored by a node that
 * died is woken by another node at most one pulse late, not one sweep late). The alarm holds only
 * the earliest time; a later one heard meanwhile is not lost, because the pass that the earlier
 * one starts reads the next due time again.
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

    public WaitAlarm() {
        this(System::nanoTime);
    }

    public WaitAlarm(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** Something is due {@code in} from now (negative or zero: now); null: nothing. */
    public synchronized void wake(Duration in) {
        if (in == null) {
            return;
        }
        long at = nanos.getAsLong() + Math.max(0, in.toNanos());
        if (!armed || at - dueAt < 0) {
            dueAt = at;
            armed = true;
        }
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
