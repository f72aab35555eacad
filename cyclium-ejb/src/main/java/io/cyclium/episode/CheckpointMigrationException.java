package io.cyclium.episode;

/** A checkpoint could not be brought to the strategy's current state version. */
public class CheckpointMigrationException extends RuntimeException {
    public CheckpointMigrationException(String message) {
        super(message);
    }
}
