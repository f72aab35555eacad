package io.cyclium.output;

import io.cyclium.store.JsonText;
import jakarta.json.JsonObject;
import java.time.LocalDateTime;

/**
 * What callers, pages and JSON bodies see of an output. Times are UTC.
 *
 * @param status     proposed, delivered, failed, or retrying (an operator's retry is delivering it)
 * @param attempts   delivery attempts so far: 1 for the first, plus one per retry
 */
public record OutputView(
        String id,
        String episodeId,
        String type,
        String dedupeKey,
        String status,
        JsonObject payload,
        String deliveredRef,
        String errorClass,
        String errorDetail,
        int attempts,
        LocalDateTime createdAt,
        LocalDateTime updatedAt,
        LocalDateTime deliveredAt) {

    public static OutputView of(OutputEntity o) {
        return new OutputView(o.id, o.episodeId, o.outputType, o.dedupeKey, o.status, JsonText.parseObject(o.payload),
                o.deliveredRef, o.errorClass, o.errorDetail, o.attempts, o.createdAt, o.updatedAt, o.deliveredAt);
    }
}
