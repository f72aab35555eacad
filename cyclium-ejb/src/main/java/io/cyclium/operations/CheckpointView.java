package io.cyclium.operations;

import io.cyclium.episode.CheckpointEntity;

import java.time.LocalDateTime;

/** A checkpoint's metadata (and its JSON state) for the console. */
public record CheckpointView(int checkpointNo, String phase, int schemaVersion, String state, LocalDateTime createdAt) {

    static CheckpointView of(CheckpointEntity c) {
        return new CheckpointView(c.checkpointNo, c.phase, c.schemaVersion, c.state, c.createdAt);
    }
}
