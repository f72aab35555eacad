package io.cyclium.api;

import io.cyclium.runtime.ActorHost;
import io.cyclium.actor.CycliumEvent;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /cyclium/api/events} with {@code {"type": "...", "id": "...", "payload": {...}}}: puts
 * the event on this node's bus. 202 with the expectations it matched and the dedupe key of each:
 * the 202 means stored — every episode the event created is committed before the answer (they run
 * afterwards). 503 when this node cannot store it (draining, database down): send it again, here
 * or to another node; an event id (or the same payload) makes the repeat a duplicate, never a
 * second episode. Debounced expectations are the exception: their timer lives on this node.
 */
@Path("events")
@RequestScoped
public class EventResource {

    @Inject
    ActorHost host;

    public record Matched(String actor, String expectation, String dedupeKey) {
    }

    public record Accepted(String type, String id, List<Matched> matched) {
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response post(String body) {
        JsonObject o = JsonBodies.object(body);
        String type = JsonBodies.requiredName(o, "type");
        String id = JsonBodies.optionalString(o, "id");
        JsonObject payload = JsonBodies.optionalObject(o, "payload");
        Map<String, Map<String, String>> routed = host.publish(new CycliumEvent(type, id, payload));
        List<Matched> matched = new ArrayList<>();
        routed.forEach((actor, byExp) -> byExp.forEach((exp, key) -> matched.add(new Matched(actor, exp, key))));
        return Response.accepted(new Accepted(type, id, matched)).build();
    }
}
