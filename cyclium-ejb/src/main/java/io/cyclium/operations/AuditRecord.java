package io.cyclium.operations;

import java.time.LocalDateTime;

/**
 * One row of the audit trail as the console and {@code GET /api/audit} show it. {@code at} is
 * UTC on the database clock; {@code outcome} is ok, refused or failed ({@code reason} says why);
 * {@code episodeId} names the episode the subject belongs to (an output's), when there is one.
 */
public record AuditRecord(String id, LocalDateTime at, String user, String address, String node, String action,
        String subjectKind, String subjectId, String episodeId, String outcome, String reason, String detail) {
}
