package io.cyclium.operations;

import java.time.LocalDateTime;

/**
 * A pause as the API and the console show it: what ({@code kind}: actor, expectation or workflow;
 * {@code target}: its id, {@code actor/expectation} for an expectation), whether it is paused now,
 * and who paused it and when (database clock, UTC; null when it is not paused).
 */
public record PauseView(String kind, String target, boolean paused, String pausedBy, LocalDateTime pausedAt) {
}
