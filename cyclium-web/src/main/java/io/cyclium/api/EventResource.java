package io.cyclium.api;

import io.cyclium.runtime.ActorHost;
import io.cyclium.actor.CycliumEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import io.cyclium.problem.Problem;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code POST /cyclium/api/events} with {@code {"type": "...", "id": "...", "payload": {...}}}: puts
 * the event on this node's bus. 202 with the expectations it matched and the dedupe key of each:
 * the 202 means stored — every episode the event created is committed before the answer (they run
 * afterwards). 503 when this node cannot store it (draining, database down): send it again, here
 * or to another node; an event id (or the same payload) makes the repeat a duplicate, never a
 * second episode. Debounced expectations are the exception: their timer lives on this node.
 *
 * <p>A JSON array of such events (1 to {@value #MAX_BATCH}) is stored in one transaction: all of
 * them or, on a 400 naming the element ({@code [3].type}) or a 503, none. The 202 then lists each
 * event's answer in the order sent. One commit for the lot is what a producer with many events
 * per second should use: a commit per event costs more than the event.
 *
 * <p>One instance for the application (it holds nothing of a request): a request-scoped resource
 * was created and injected on every POST (6–8 % of a POST's samples in a profile on Payara; the
 * benchmark's spread hides the difference).
 */
@Path("events")
@ApplicationScoped
public class EventResource {

    /** The most events one POST may carry. */
    static final int MAX_BATCH = 1_000;

    @Inject
    ActorHost host;

    public record Matched(String actor, String expectation, String dedupeKey) {
    }

    public record Accepted(String type, String id, List<Matched> matched) {
    }

    public record AcceptedBatch(List<Accepted> accepted) {
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response post(String body) {
        JsonValue value = JsonBodies.value(body, "a JSON object (an event) or an array of them is expected");
        if (value instanceof JsonArray array) {
            return Response.accepted(postAll(array)).build();
        }
        if (!(value instanceof JsonObject o)) {
            throw Problem.invalid(null, "the request body must be a JSON object (an event) or an array of them, not "
                    + value.getValueType().name().toLowerCase(Locale.ROOT));
        }
        CycliumEvent event = event(o);
        return Response.accepted(accepted(event, host.publish(event))).build();
    }

    private AcceptedBatch postAll(JsonArray array) {
        if (array.isEmpty() || array.size() > MAX_BATCH) {
            throw Problem.invalid(null, "a batch holds 1 to " + MAX_BATCH + " events, not " + array.size());
        }
        // every element is checked before anything is stored
        List<CycliumEvent> events = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            String at = "[" + i + "]";
            if (!(array.get(i) instanceof JsonObject o)) {
                throw Problem.invalid(at, "event " + at + " must be a JSON object, not "
                        + array.get(i).getValueType().name().toLowerCase(Locale.ROOT));
            }
            try {
                events.add(event(o));
            } catch (Problem p) {
                throw Problem.invalid(p.field() == null ? at : at + "." + p.field(), "event " + at + ": " + p.getMessage());
            }
        }
        List<Map<String, Map<String, String>>> routed = host.publishAll(events);
        List<Accepted> accepted = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            accepted.add(accepted(events.get(i), routed.get(i)));
        }
        return new AcceptedBatch(accepted);
    }

    private static CycliumEvent event(JsonObject o) {
        String type = JsonBodies.requiredName(o, "type");
        String id = JsonBodies.optionalString(o, "id");
        JsonObject payload = JsonBodies.optionalObject(o, "payload");
        return new CycliumEvent(type, id, payload);
    }

    private static Accepted accepted(CycliumEvent event, Map<String, Map<String, String>> routed) {
        List<Matched> matched = new ArrayList<>();
        routed.forEach((actor, byExp) -> byExp.forEach((exp, key) -> matched.add(new Matched(actor, exp, key))));
        return new Accepted(event.type(), event.id(), matched);
    }
}
