package io.cyclium.api;

import io.cyclium.actor.CycliumEvent;
import io.cyclium.problem.Problem;
import io.cyclium.runtime.ActorHost;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
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
 * <p>A servlet, not a JAX-RS resource, because it is the API's one hot path: with one event per
 * POST, Jersey's request pipeline (routing, the entity provider chain, the MicroProfile Telemetry
 * listener, JSON-B through the writer interceptors) took about a third of a request thread's
 * samples in a profile on Payara, three times what this method and everything it calls took. The
 * answers are the JAX-RS resources' own: the same JSON-B defaults for bodies, {@link ApiErrors}
 * for failures, the same security constraints and request guard (both are by URL: a body must be
 * JSON, a change from another origin is refused, see ApiRequestGuard), and a JSON 405 for any other
 * method. An exact mapping wins over the JAX-RS application's {@code /api/*}; paths below
 * {@code /api/events/} stay Jersey's (404).
 */
@WebServlet(name = "EventIntake", urlPatterns = EventIntakeServlet.PATH)
public class EventIntakeServlet extends HttpServlet {

    static final String PATH = "/api/events";

    /** The most events one POST may carry. */
    static final int MAX_BATCH = 1_000;

    /** Read no further than this: {@link JsonBodies#MAX_BODY_CHARS} characters of UTF-8 at most. */
    private static final int MAX_BODY_BYTES = JsonBodies.MAX_BODY_CHARS * 4;

    private static final Jsonb JSONB = JsonbBuilder.create();

    @Inject
    ActorHost host;

    public record Matched(String actor, String expectation, String dedupeKey) {
    }

    public record Accepted(String type, String id, List<Matched> matched) {
    }

    public record AcceptedBatch(List<Accepted> accepted) {
    }

    /** POST is the operation; every other method gets a JSON 405 (OPTIONS: the allowed methods). */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String method = req.getMethod();
        if ("POST".equals(method)) {
            doPost(req, resp);
        } else if ("OPTIONS".equals(method)) {
            resp.setHeader("Allow", "POST, OPTIONS");
            resp.setStatus(HttpServletResponse.SC_OK);
        } else {
            resp.setHeader("Allow", "POST, OPTIONS");
            write(resp, 405, new ApiError(405, "Method Not Allowed", null, null));
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object answer;
        try {
            answer = accept(body(req));
        } catch (RuntimeException | Error e) {
            ApiError error = ApiErrors.answer(e);
            write(resp, error.status(), error);
            return;
        }
        write(resp, HttpServletResponse.SC_ACCEPTED, answer);
    }

    /** The answer to one body: an {@link Accepted} for an object, an {@link AcceptedBatch} for an array. */
    Object accept(String body) {
        JsonValue value = JsonBodies.value(body, "a JSON object (an event) or an array of them is expected");
        if (value instanceof JsonArray array) {
            return postAll(array);
        }
        if (!(value instanceof JsonObject o)) {
            throw Problem.invalid(null, "the request body must be a JSON object (an event) or an array of them, not "
                    + value.getValueType().name().toLowerCase(Locale.ROOT));
        }
        CycliumEvent event = event(o);
        return accepted(event, host.publish(event));
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

    /**
     * The body as text in the request's charset (UTF-8 when it names none). A body longer than
     * {@link JsonBodies} accepts is refused after reading one byte past the limit, not held whole.
     */
    private static String body(HttpServletRequest req) throws IOException {
        Charset charset = StandardCharsets.UTF_8;
        String named = req.getCharacterEncoding();
        if (named != null) {
            try {
                charset = Charset.forName(named);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                throw Problem.invalid(null, "the request's charset " + named + " is not one this server reads; send UTF-8");
            }
        }
        byte[] bytes;
        try (InputStream in = req.getInputStream()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw Problem.invalid(null, "the request body has more than " + MAX_BODY_BYTES + " bytes; at most "
                    + JsonBodies.MAX_BODY_CHARS + " characters are accepted");
        }
        return new String(bytes, charset);
    }

    private static void write(HttpServletResponse resp, int status, Object body) throws IOException {
        byte[] json = JSONB.toJson(body).getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(json.length);
        resp.getOutputStream().write(json);
    }
}
