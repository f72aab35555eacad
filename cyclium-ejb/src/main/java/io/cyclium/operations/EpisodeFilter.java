package io.cyclium.operations;

import io.cyclium.episode.EpisodeStatus;

import io.cyclium.problem.Problem;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Which episodes a list shows. Every field is optional (null: any). {@code stack} and {@code env}
 * equal to {@link #UNSET} select the rows without one. {@code startedFrom} is inclusive,
 * {@code startedBefore} exclusive, both UTC. Values are only ever bound, never spliced into SQL.
 */
public record EpisodeFilter(String actorId, String expectationId, String status, String stack, String env,
        LocalDateTime startedFrom, LocalDateTime startedBefore) {

    /** The value of {@code stack} or {@code env} that means "not set" (SQL NULL). */
    public static final String UNSET = "-";

    public static final EpisodeFilter ANY = new EpisodeFilter(null, null, null, null, null, null, null);

    public EpisodeFilter {
        actorId = blankToNull(actorId);
        expectationId = blankToNull(expectationId);
        stack = blankToNull(stack);
        env = blankToNull(env);
        status = blankToNull(status);
        if (status != null) {
            String raw = status;
            status = EpisodeStatus.parse(raw).map(EpisodeStatus::wire).orElseThrow(() -> Problem.invalid("status",
                    "status \"" + shorten(raw) + "\" is not one of running, blocked, done, partially_failed, failed, canceled"));
        }
        if (startedFrom != null && startedBefore != null && !startedFrom.isBefore(startedBefore)) {
            throw Problem.invalid("from", "from (" + startedFrom + ") must be before to (" + startedBefore + ")");
        }
    }

    /** Parses the filter as the API and the console take it: times are ISO-8601, with an offset or UTC. */
    public static EpisodeFilter parse(String actorId, String expectationId, String status, String stack, String env,
            String from, String to) {
        return new EpisodeFilter(actorId, expectationId, status, stack, env, time("from", from), time("to", to));
    }

    /** An ISO-8601 time ({@code 2026-11-30T07:00:00Z}, or without offset: UTC) as UTC; blank: null. */
    public static LocalDateTime time(String field, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String s = raw.trim();
        try {
            return OffsetDateTime.parse(s).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        } catch (DateTimeParseException withoutOffset) {
            try {
                return LocalDateTime.parse(s);
            } catch (DateTimeParseException e) {
                throw Problem.invalid(field, field + " \"" + shorten(s) + "\" is not an ISO-8601 time such as"
                        + " 2026-11-30T07:00:00Z");
            }
        }
    }

    static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
