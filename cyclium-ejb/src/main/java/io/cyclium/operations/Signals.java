package io.cyclium.operations;

import io.cyclium.episode.WaitStore;
import io.cyclium.node.NodeIdentity;
import io.cyclium.problem.Problem;
import io.cyclium.runtime.ActorHost;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;

/**
 * Signals to episodes: a named JSON payload for a waiting episode ({@code Step.waitFor(name)}).
 * An episode that waits for that name is resolved with it and resumes (here when its actor runs
 * here, else on the next sweep of a node that runs it); any other unfinished episode keeps the
 * signal until it waits for that name, and is then handed it at once without leaving its slot.
 * A finished episode refuses it (409): nothing would ever read it.
 * The logic is {@link SignalDelivery}'s; this bean adds the name check, metrics and the resume.
 */
@ApplicationScoped
public class Signals {

    @Inject
    ActorHost host;

    @Inject
    Tx tx;

    @Inject
    NodeIdentity identity;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Telemetry telemetry;

    /** What a signal came to: delivered to the waiting episode, or kept until it waits for the name. */
    public record SignalOutcome(String episodeId, String name, boolean delivered, String status) {
        public String outcome() {
            return delivered ? "delivered" : "kept";
        }
    }

    public SignalOutcome signalEpisode(String episodeId, String name, JsonValue payload, String by) {
        SignalDelivery.Delivered d = new SignalDelivery(tx, host.store(), new WaitStore(vendor), identity.name())
                .toEpisode(EpisodeService.checkId(episodeId), WaitStore.checkSignalName(name, "name"), payload, by, a -> host.runtime(a).isPresent());
        telemetry.count("signal_received", "outcome", d.outcome().outcome());
        if (d.outcome().delivered()) {
            telemetry.count("signal_delivered", "actor", d.actorId(), "how", "waiting");
            host.runtime(d.actorId()).ifPresent(rt -> rt.resume(d.outcome().episodeId(), d.expectationId()));
        }
        return d.outcome();
    }

}
