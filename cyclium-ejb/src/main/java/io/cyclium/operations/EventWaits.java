package io.cyclium.operations;

import io.cyclium.episode.WaitResolution;
import io.cyclium.episode.WaitStore;
import io.cyclium.node.NodeIdentity;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.EventStored;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Jsons;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;

/**
 * An event resolves the waits that declared its key: an episode waiting with
 * {@code Step.waitFor(type).keyed(key)} is resolved by an event of that type whose payload's
 * {@code waitKey} is that key, with the event's payload as the wait's value — in the transaction
 * that stores the event (the caller's, when it has one), so the event is stored and the wait
 * resolved together or neither. An event without a {@code waitKey} costs nothing here.
 */
@ApplicationScoped
public class EventWaits {

    /** The payload field an event names its key in. */
    public static final String WAIT_KEY = "waitKey";
    /** At most this many waits are resolved by one event. */
    static final int MAX_PER_EVENT = 100;

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

    void onEvent(@Observes EventStored stored) {
        JsonValue key = stored.event().payload().get(WAIT_KEY);
        if (!(key instanceof JsonString k)) {
            return;
        }
        String type = stored.event().type();
        String node = identity.name();
        WaitStore waits = new WaitStore(vendor);
        WaitResolution resolution = new WaitResolution(host.store(), waits);
        JsonObject detail = Jsons.object().add("reference", type).add("value", stored.event().payload())
                .add("event", stored.event().id() == null ? "" : stored.event().id()).add("key", k.getString()).build();
        List<WaitStore.WaitRow> resolved = new ArrayList<>();
        tx.inCallerTransaction(em -> {
            resolved.clear();
            resolved.addAll(resolution.resolveKeyed(em, type, k.getString(), detail, node, a -> host.runtime(a).isPresent(),
                    MAX_PER_EVENT));
            return null;
        }, committed -> {
            if (!committed) {
                return;
            }
            for (WaitStore.WaitRow w : resolved) {
                telemetry.count("signal_delivered", "actor", w.actorId(), "how", "event");
                host.runtime(w.actorId()).ifPresent(rt -> rt.resume(w.episodeId(), w.expectationId()));
            }
        });
    }
}
