package io.cyclium.operations;

import java.time.LocalDateTime;

/**
 * One target of a bulk action: its episode and result ({@code pending}, {@code working},
 * {@code done}, {@code skipped}, {@code failed}); {@code reason} says what was done, why it was
 * skipped ("episode … is already done") or the error. {@code finishedAt} is UTC.
 */
public record BulkItemView(int itemNo, String episodeId, String result, String reason, LocalDateTime finishedAt) {
}
