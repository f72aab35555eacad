package io.cyclium.retention;

import io.cyclium.store.Tx;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The two halves of every retention chunk, shared by the batch artifacts and by anything that
 * runs a step outside the batch runtime (tests, the benchmark): read the next keys after the
 * checkpoint, then change them and move the checkpoint in one transaction.
 */
public final class RetentionChunks {

    /** One chunk's outcome. */
    public record Chunk(int read, int written, String lastKey) {
    }

    private final Tx tx;
    private final RetentionStore store;

    public RetentionChunks(Tx tx, RetentionStore store) {
        this.tx = Objects.requireNonNull(tx, "tx");
        this.store = Objects.requireNonNull(store, "store");
    }

    public RetentionStore store() {
        return store;
    }

    public Optional<String> checkpoint(String runId, RetentionStep step) {
        return tx.inNewTransaction(em -> store.checkpoint(em, runId, step));
    }

    public List<String> read(RetentionStep step, Duration window, String after, int limit) {
        return tx.inNewTransaction(em -> store.candidates(em, step, window, after, limit));
    }

    /** Applies the step to {@code keys} (in key order) and records the chunk, atomically. */
    public Chunk write(String runId, RetentionStep step, Duration window, List<String> keys) {
        if (keys.isEmpty()) {
            return new Chunk(0, 0, null);
        }
        String last = keys.get(keys.size() - 1);
        return tx.inNewTransaction(em -> {
            int written = store.apply(em, step, window, keys);
            store.recordChunk(em, runId, step, keys.size(), written, last);
            return new Chunk(keys.size(), written, last);
        });
    }

    /**
     * Runs one step to its end from its stored checkpoint, chunk by chunk, outside the batch
     * runtime; {@code beforeChunk} may throw to stop (a lost claim, a test's simulated crash).
     *
     * @return rows changed by this call
     */
    public long runStep(String runId, RetentionStep step, Duration window, int chunkSize, Runnable beforeChunk) {
        String after = checkpoint(runId, step).orElse(null);
        long written = 0;
        while (true) {
            List<String> keys = read(step, window, after, chunkSize);
            if (keys.isEmpty()) {
                return written;
            }
            beforeChunk.run();
            Chunk c = write(runId, step, window, keys);
            written += c.written();
            after = c.lastKey();
            if (keys.size() < chunkSize) {
                return written;
            }
        }
    }
}
