package io.cyclium.config;

import java.time.Duration;
import java.time.LocalTime;
import java.util.Optional;

/**
 * The retention job's windows, read with every other property (see {@link CycliumConfigReader}).
 *
 * @param enabled         whether the daily timer starts the job (running it by hand works either way)
 * @param dailyAt         UTC time of day the timer fires on every node (one of them runs the job)
 * @param archiveAfter    terminal episodes finished longer ago than this are archived, which frees
 *                        their dedupe keys
 * @param purgeAfter      archived episodes older than this (since archival) are deleted with their
 *                        steps, checkpoints and outputs; empty: never (the default)
 * @param claimsAfter     done/expired work claims settled longer ago than this are deleted
 * @param requestsAfter   completed/expired trigger requests last changed longer ago than this are deleted
 * @param chunkSize       rows read and written per chunk (one transaction, one checkpoint)
 * @param catchUp         after dailyAt, how often a node checks that the day's run completed and
 *                        starts or resumes it if not (a dead runner's run continues within this):
 *                        whole seconds under a minute, whole minutes from a minute to an hour
 * @param auditAfter      audit rows (operator actions) older than this are deleted
 */
public record RetentionSettings(
        boolean enabled,
        LocalTime dailyAt,
        Duration archiveAfter,
        Optional<Duration> purgeAfter,
        Duration claimsAfter,
        Duration requestsAfter,
        int chunkSize,
        Duration catchUp,
        Duration auditAfter) {

    public static final RetentionSettings DEFAULTS = new RetentionSettings(true, LocalTime.of(3, 30),
            Duration.ofDays(7), Optional.empty(), Duration.ofDays(1), Duration.ofDays(1), 500, Duration.ofMinutes(5), Duration.ofDays(365));
}
