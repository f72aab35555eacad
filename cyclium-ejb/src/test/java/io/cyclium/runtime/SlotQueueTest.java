package io.cyclium.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * One actor's slots and queue on one node, driven the way concurrent fires and task ends interleave.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class SlotQueueTest {

    private final RecordingLauncher launcher = new RecordingLauncher();

    @Test
    void a_slot_given_back_by_a_fire_whose_insert_did_not_happen_starts_the_next_queued_episode() {
        SlotQueue slots = new SlotQueue(1, launcher, "node-1", "worker");
        // the state a task's end leaves when a fire reserved the slot it freed before the queue
        // was drained: the slot reserved, an episode queued behind it, nothing running
        assertThat(slots.tryReserve()).isTrue();
        slots.enqueueFresh("queued-1", null, false);
        assertThat(launcher.started).as("the reservation holds the only slot").isEmpty();

        // the fire's insert found its dedupe key taken (a client's retry of the same event)
        slots.unreserve();

        assertThat(launcher.started).extracting(RecordingLauncher.Start::episodeId).containsExactly("queued-1");
        assertThat(slots.queuedCount()).isZero();
    }
}
