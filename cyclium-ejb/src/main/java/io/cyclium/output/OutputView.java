package io.cyclium.output;

import java.time.LocalDateTime;

/** An output row as pages and JSON bodies see it. */
public record OutputView(String id, String episodeId, String outputType, String dedupeKey, String status, String payload,
        String deliveredRef, String errorClass, String errorDetail, int attempts, LocalDateTime createdAt,
        LocalDateTime deliveredAt) {

    public static OutputView of(OutputEntity o) {
        return new OutputView(o.id, o.episodeId, o.outputType, o.dedupeKey, o.status, o.payload, o.deliveredRef,
                o.errorClass, o.errorDetail, o.attempts, o.createdAt, o.deliveredAt);
    }
}
