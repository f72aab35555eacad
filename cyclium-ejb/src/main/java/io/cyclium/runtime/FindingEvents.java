package io.cyclium.runtime;

import io.cyclium.store.Jsons;
import io.cyclium.actor.CycliumEvent;

import io.cyclium.finding.FindingChanged;
import io.cyclium.finding.FindingOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import java.util.Locale;

/**
 * Puts finding changes on the bus as {@code finding.raised}, {@code finding.updated} and
 * {@code finding.cleared}, so actors can react to what other actors concluded. The event id is
 * the finding id plus the change, so the key is the same on every node that would see it.
 */
@ApplicationScoped
public class FindingEvents {

    @Inject
    ActorHost host;

    void onChange(@Observes FindingChanged change) {
        if (change.kind() == FindingOutcome.Kind.NOOP || change.kind() == FindingOutcome.Kind.NOT_FOUND) {
            return;
        }
        String what = change.kind().name().toLowerCase(Locale.ROOT);
        JsonObjectBuilder payload = Jsons.object()
                .add("findingId", change.findingId())
                .add("findingKey", change.findingKey());
        if (change.findingClass() != null) {
            payload.add("class", change.findingClass());
        }
        if (change.severity() != null) {
            payload.add("severity", change.severity().wireName());
        }
        if (change.env() != null) {
            payload.add("env", change.env());
        }
        if (change.episodeId() != null) {
            payload.add("episodeId", change.episodeId());
        }
        String suffix = change.kind() == FindingOutcome.Kind.UPDATED && change.episodeId() != null ? ":" + change.episodeId() : "";
        host.publish(new CycliumEvent("finding." + what, change.findingId() + ":" + what + suffix, payload.build()));
    }
}
