package io.cyclium.operations;

import java.time.LocalDateTime;
import java.util.Map;

/**
 * A bulk action as pages and JSON bodies see it: what it does, over which filter (the fields set,
 * in the episode list's names), how far it is. {@code total} targets were frozen when it was
 * accepted; {@code pending + done + skipped + failed == total}. {@code status} is {@code running}
 * until no item is open, then {@code done}; or {@code canceled} once an operator canceled it (its
 * items not yet processed then are skipped with the reason "action canceled"; an item in
 * hand at that moment still gets its own result). {@code claimedBy} is the node working on it (null when
 * none is, e.g. between its node's death and another node taking it over). Times are UTC.
 */
public record BulkActionView(String id, String action, Map<String, String> filter, String status, int total, long pending,
        long done, long skipped, long failed, String createdBy, LocalDateTime createdAt, LocalDateTime finishedAt,
        String claimedBy) {

    /** Items with a final result. */
    public long processed() {
        return done + skipped + failed;
    }
}
