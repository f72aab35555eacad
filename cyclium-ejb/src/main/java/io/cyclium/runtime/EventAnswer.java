package io.cyclium.runtime;

import io.cyclium.actor.CycliumEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one published event matched on this node, and per match what was stored and what not. */
public record EventAnswer(CycliumEvent event, List<Match> matches) {

    public EventAnswer {
        matches = List.copyOf(matches);
    }

    /** Whether every match is stored (or coalesced into stored work, or durably debounced); true for no match. */
    public boolean allStored() {
        return matches.stream().allMatch(m -> m.outcome().stored());
    }

    /** Actor → (expectation → dedupe key) of the actors' matches, whatever their outcome (the earlier answer's shape). */
    public Map<String, Map<String, String>> keys() {
        Map<String, Map<String, String>> keys = new LinkedHashMap<>();
        for (Match m : matches) {
            if (m.actor() != null) {
                keys.computeIfAbsent(m.actor(), a -> new LinkedHashMap<>()).put(m.expectation(), m.dedupeKey());
            }
        }
        return keys;
    }
}
