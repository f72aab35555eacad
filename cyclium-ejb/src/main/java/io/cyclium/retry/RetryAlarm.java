package io.cyclium.retry;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When this node's workflow timer next asks the database for due retries (of workflow steps and
 * of plain episodes), so that a node with nothing due sends no statement per tick.
 *
 * <p>Two sources set the alarm. This node's own scheduling ({@link #wake}): a retry it stores is
 * due at "now + backoff", so it rings then. Every other node's: the timer's pulse
 * ({@link #heard}, at most every {@link #IDLE_CHECK}) reads the earliest due time of the whole
 * cluster on the database's clock. So a retry stored by a node that died is still started by
 * another node, at most {@link #IDLE_CHECK} after it is due (and a claim whose node died comes
 * round when its claim lease ends, as before). Only a hint: the claim of a due row is still the
 * one guarded UPDATE that decides, so ringing early or twice costs a read, never a second start.
 */
@ApplicationScoped
public class RetryAlarm {

    /** How often an idle node asks the database what is due (and whether definitions changed). */
    public static final Duration IDLE_CHECK = Duration.ofSeconds(10);

    private final LongSupplier nanos;
    private volatile long idleCheckNanos = IDLE_CHECK.toNanos();
    // nanoTime values may be negative and are compared by difference only; "none due" is a flag
    private boolean armed;
    private long dueAt;
    private long nextCheckAt;

    public RetryAlarm() {
        this(System::nanoTime);
    }

    RetryAlarm(LongSupplier nanos) {
        this.nanos = nanos;
        this.nextCheckAt = nanos.getAsLong(); // the first tick reads the pulse
    }

    /**
     * Reads the pulse at least this often (the workflow timer sets the heartbeat interval when it is
     * shorter than {@link #IDLE_CHECK}: the pulse carries the pauses, which every node is to see
     * within one heartbeat).
     */
    public void checkEvery(java.time.Duration every) {
        idleCheckNanos = Math.min(IDLE_CHECK.toNanos(), Math.max(1, every.toNanos()));
    }

    /** A retry stored by this node is due {@code in} from now. */
    public synchronized void wake(Duration in) {
        arm(nanos.getAsLong() + Math.max(0, in.toNanos()));
    }

    /** Whether the pulse is to be read now (every {@link #IDLE_CHECK}, and right after retries ran). */
    public synchronized boolean pulseDue() {
        return nanos.getAsLong() - nextCheckAt >= 0;
    }

    /**
     * The pulse said when the earliest retry is due (null: none waits), measured on the
     * database's clock; the next pulse is one {@link #IDLE_CHECK} away.
     */
    public synchronized void heard(Duration earliestDueIn) {
        long now = nanos.getAsLong();
        nextCheckAt = now + idleCheckNanos;
        if (earliestDueIn != null) {
            arm(now + Math.max(0, earliestDueIn.toNanos()));
        }
    }

    private void arm(long at) {
        if (!armed || at - dueAt < 0) {
            dueAt = at;
            armed = true;
        }
    }

    /** Whether due retries are to be run now. */
    public synchronized boolean ringing() {
        return armed && nanos.getAsLong() - dueAt >= 0;
    }

    /**
     * The due retries ran. With {@code more} (a full batch) they run again next tick; otherwise
     * the alarm is off and the next tick reads the pulse, which says when the next one is due.
     */
    public synchronized void ran(boolean more) {
        long now = nanos.getAsLong();
        if (!more) {
            armed = false;
            nextCheckAt = now;
        }
    }
}
