package io.cyclium.api;

import io.cyclium.actor.CycliumEvent;
import io.cyclium.problem.Problem;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.EventAnswer;
import io.cyclium.runtime.Match;
import io.cyclium.runtime.Outcome;
import io.cyclium.telemetry.TraceSpan;
import io.cyclium.telemetry.Tracing;
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
import java.time.Duration;

/**
 * {@code POST /cyclium/api/events} with {@code {"type": "...", "id": "...", "payload": {...}}}: puts
 * the event on this node's bus and answers, per match (an actor's expectation, or a workflow the
 * event starts), what became of it: {@code outcome} is {@code stored} (its episode or instance is
 * committed: {@code id} names it), {@code coalesced} (active work with the same dedupe key, or the
 * workflow's instance in flight for the subject, stands for it), {@code debounced} (stored as the
 * subject's pending trigger; any node fires it when the window closes), or one that was NOT stored:
 * {@code cooling_down}, {@code dropped} ({@code reason} {@code overflow} or {@code breaker_open}),
 * {@code disabled}. The status says which case the request is in:
 * <ul>
 *   <li>202: every match is stored, coalesced or debounced (the episodes run afterwards);
 *   <li>200: the event matched nothing: nothing was stored, nothing needs to be;
 *   <li>429 with {@code Retry-After} (when known): some match is cooling down or dropped for
 *       overflow, and none was refused for the reasons below; the other matches are stored;
 *   <li>503 with {@code Retry-After} (when known): some match was refused because its actor or the
 *       node is disabled, or its circuit breaker is open; and, as before, with an error body and
 *       nothing stored, when the node cannot store the event (draining, database down).
 * </ul>
 * A 429 or 503 with matches carries the same body as the 202 plus {@code status} and {@code error};
 * sending the event again is safe: an event id (or the same payload) makes the repeat of a match
 * whose episode is still active a duplicate, never a second episode.
 *
 * <p>A JSON array of such events (1 to {@value #MAX_BATCH}) is stored in one transaction: all of
 * them or, on a 400 naming the element ({@code [3].type}) or a 503, none. The body then lists each
 * event's answer in the order sent, and the status is the one above for all the matches of all the
 * events. One commit for the lot is what a producer with many events per second should use: a
 * commit per event costs more than the event.
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

    /** The W3C trace context header. */
    static final String TRACEPARENT = "traceparent";

    @Inject
    ActorHost host;

    @Inject
    Tracing tracing;

    /** One match; {@code workflow} for a workflow the event starts, {@code actor} and {@code expectation} otherwise. */
    public record Matched(String actor, String expectation, String workflow, String dedupeKey, String outcome,
            String reason, String id, Long retryAfterSeconds) {
    }

    /** The answer to one event; {@code status} and {@code error} only when some match was not stored. */
    public record Accepted(Integer status, String error, String type, String id, List<Matched> matched) {
    }

    /** The answer to a list; {@code status} and {@code error} only when some match was not stored. */
    public record AcceptedBatch(Integer status, String error, List<Accepted> accepted) {
    }

    /** The status of an answer, its message when it is not a 2xx, and the Retry-After seconds when known. */
    record Verdict(int status, String error, Long retryAfterSeconds) {

        static Verdict of(List<EventAnswer> answers) {
            int matches = 0;
            int refused = 0;
            boolean unavailable = false;
            Duration wait = null;
            java.util.Map<String, Integer> why = new java.util.TreeMap<>();
            for (EventAnswer a : answers) {
                for (Match m : a.matches()) {
                    matches++;
                    if (m.outcome().stored()) {
                        continue;
                    }
                    refused++;
                    why.merge(m.reason() == null ? m.outcome().wireName() : m.reason(), 1, Integer::sum);
                    unavailable |= m.outcome() == Outcome.DISABLED || "breaker_open".equals(m.reason());
                    if (m.retryAfter() != null && (wait == null || m.retryAfter().compareTo(wait) > 0)) {
                        wait = m.retryAfter();
                    }
                }
            }
            if (refused == 0) {
                return new Verdict(matches == 0 ? HttpServletResponse.SC_OK : HttpServletResponse.SC_ACCEPTED, null, null);
            }
            int status = unavailable ? HttpServletResponse.SC_SERVICE_UNAVAILABLE : 429;
            return new Verdict(status, refused + " of " + matches + " matches were not stored " + why
                    + "; the others were (see matched[].outcome). Sending the event again is safe: a match whose"
                    + " episode is still active is a duplicate.", wait == null ? null : seconds(wait));
        }

        /** Whole seconds, rounded up, at least 1: a client waiting 0 s would be refused again. */
        static Long seconds(Duration d) {
            return Math.max(1, (d.toMillis() + 999) / 1000);
        }

        Integer statusField() {
            return error == null ? null : status;
        }
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

    /**
     * The caller's W3C {@code traceparent}, when it sends one, is the parent of this request's span,
     * which is current while the events are stored: every episode and workflow instance they store
     * keeps it as the parent of its runs (on whichever node runs them). Tracing off: nothing.
     */
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!tracing.on()) {
            post(req, resp);
            return;
        }
        try (TraceSpan span = tracing.enter("POST " + req.getContextPath() + PATH, req.getHeader(TRACEPARENT),
                "http.request.method", "POST", "url.path", req.getRequestURI())) {
            int status = post(req, resp);
            span.set("http.response.status_code", String.valueOf(status));
            if (status >= 500) {
                span.failed(String.valueOf(status));
            }
        }
    }

    /** Answers the POST; returns the status written. */
    private int post(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Answer answer;
        try {
            answer = accept(body(req));
        } catch (RuntimeException | Error e) {
            ApiError error = ApiErrors.answer(e);
            write(resp, error.status(), error);
            return error.status();
        }
        if (answer.verdict().retryAfterSeconds() != null) {
            resp.setHeader("Retry-After", String.valueOf(answer.verdict().retryAfterSeconds()));
        }
        write(resp, answer.verdict().status(), answer.body());
        return answer.verdict().status();
    }

    /** A body to write and its verdict. */
    record Answer(Verdict verdict, Object body) {
    }

    /** The answer to one body: an {@link Accepted} for an object, an {@link AcceptedBatch} for an array. */
    Answer accept(String body) {
        JsonValue value = JsonBodies.value(body, "a JSON object (an event) or an array of them is expected");
        if (value instanceof JsonArray array) {
            return postAll(array);
        }
        if (!(value instanceof JsonObject o)) {
            throw Problem.invalid(null, "the request body must be a JSON object (an event) or an array of them, not "
                    + value.getValueType().name().toLowerCase(Locale.ROOT));
        }
        EventAnswer answer = host.accept(event(o));
        Verdict verdict = Verdict.of(List.of(answer));
        return new Answer(verdict, accepted(answer, verdict));
    }

    private Answer postAll(JsonArray array) {
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
        List<EventAnswer> routed = host.publishAll(events);
        Verdict verdict = Verdict.of(routed);
        List<Accepted> accepted = new ArrayList<>(events.size());
        for (EventAnswer answer : routed) {
            accepted.add(accepted(answer, null));
        }
        return new Answer(verdict, new AcceptedBatch(verdict.statusField(), verdict.error(), accepted));
    }

    private static CycliumEvent event(JsonObject o) {
        String type = JsonBodies.requiredName(o, "type");
        String id = JsonBodies.optionalString(o, "id");
        JsonObject payload = JsonBodies.optionalObject(o, "payload");
        return new CycliumEvent(type, id, payload);
    }

    /** One event's answer; {@code verdict} non-null puts its status and error in (a single event's body). */
    private static Accepted accepted(EventAnswer answer, Verdict verdict) {
        List<Matched> matched = new ArrayList<>(answer.matches().size());
        for (Match m : answer.matches()) {
            matched.add(new Matched(m.actor(), m.expectation(), m.workflow(), m.dedupeKey(), m.outcome().wireName(),
                    m.reason(), m.id(), m.retryAfter() == null ? null : Verdict.seconds(m.retryAfter())));
        }
        return new Accepted(verdict == null ? null : verdict.statusField(), verdict == null ? null : verdict.error(),
                answer.event().type(), answer.event().id(), matched);
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
