package io.cyclium.operations;

import java.util.List;
import java.util.Map;

/**
 * What a bulk action would act on, changing nothing: how many episodes match now, the first of them
 * (newest first), and the {@code token} that confirms exactly this set ({@code BulkActions#start}).
 * Above {@code maxItems} the action is refused; then {@code token} is null and {@code refusal} says
 * why.
 */
public record BulkPreview(String action, Map<String, String> filter, long count, int maxItems, String token,
        List<EpisodeView> sample, String refusal) {
}
