package io.cyclium.operations;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.Outcome;
import io.cyclium.audit.SubjectKind;
import io.cyclium.problem.Problem;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which audit rows a list shows; every field optional (null: any). {@code user}, {@code subjectId}
 * match exactly; {@code action}, {@code subjectKind} and {@code outcome} must be known wire names
 * (a 400 names the field and the allowed values); {@code from} inclusive, {@code to} exclusive, UTC.
 */
public record AuditFilter(String user, String action, String subjectKind, String subjectId, String outcome,
        LocalDateTime from, LocalDateTime to) {

    public static final AuditFilter ANY = new AuditFilter(null, null, null, null, null, null, null);

    public AuditFilter {
        user = blankToNull(user);
        action = blankToNull(action);
        subjectKind = blankToNull(subjectKind);
        subjectId = blankToNull(subjectId);
        outcome = blankToNull(outcome);
        if (action != null && AuditAction.parse(action).isEmpty()) {
            throw Problem.invalid("action", "action \"" + EpisodeFilter.shorten(action) + "\" is not one of "
                    + Arrays.stream(AuditAction.values()).map(AuditAction::wire).collect(Collectors.joining(", ")));
        }
        if (subjectKind != null && SubjectKind.parse(subjectKind).isEmpty()) {
            throw Problem.invalid("subjectKind", "subjectKind \"" + EpisodeFilter.shorten(subjectKind) + "\" is not one of "
                    + Arrays.stream(SubjectKind.values()).map(SubjectKind::wire).collect(Collectors.joining(", ")));
        }
        if (outcome != null && Outcome.parse(outcome).isEmpty()) {
            throw Problem.invalid("outcome", "outcome \"" + EpisodeFilter.shorten(outcome) + "\" is not one of ok, refused, failed");
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw Problem.invalid("from", "from (" + from + ") must be before to (" + to + ")");
        }
    }

    /** As the API and the console take it: times ISO-8601, with an offset or UTC. */
    public static AuditFilter parse(String user, String action, String subjectKind, String subjectId, String outcome,
            String from, String to) {
        return new AuditFilter(user, action, subjectKind, subjectId, outcome, EpisodeFilter.time("from", from),
                EpisodeFilter.time("to", to));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
