package io.cyclium.workflow;

import io.cyclium.store.Jsons;
import io.cyclium.timing.RetryPolicy;
import io.cyclium.problem.Problem;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The JSON form of a workflow definition (the API's PUT body and the stored {@code document}):
 * <pre>{@code
 * {"id": "review", "subjectKey": "resource",
 *  "triggers": [{"type": "event", "event": "resource.changed", "filter": ["kind=cpu"]}, {"type": "manual"}],
 *  "steps": [{"id": "collect", "actor": "resource-monitor", "expectation": "check", "dependsOn": [],
 *             "critical": true, "approval": false, "onFailure": "abort",
 *             "concurrencyKey": "$.tenant", "concurrencyLimit": 2,
 *             "retry": {"maxAttempts": 3, "initialDelay": "PT1S", "multiplier": 2, "maxDelay": "PT1M",
 *                       "jitter": 0.1, "nonRetryable": ["denied"]}}]}
 * }</pre>
 * Parsing checks the shape (types, required members) and throws a 400 {@link Problem} naming the
 * field; {@link WorkflowValidation} then checks the meaning.
 */
public final class WorkflowJson {

    private WorkflowJson() {
    }

    public static WorkflowDefinition parse(JsonObject doc) {
        String id = string(doc, "id", "id", true);
        List<WorkflowTrigger> triggers = new ArrayList<>();
        JsonArray t = array(doc, "triggers", "triggers");
        for (int i = 0; i < t.size(); i++) {
            JsonObject o = object(t.get(i), "triggers[" + i + "]");
            String at = "triggers[" + i + "]";
            triggers.add(new WorkflowTrigger(string(o, "type", at + ".type", true), string(o, "event", at + ".event", false),
                    strings(o, "filter", at + ".filter"), string(o, "every", at + ".every", false)));
        }
        List<StepDefinition> steps = new ArrayList<>();
        JsonArray s = array(doc, "steps", "steps");
        for (int i = 0; i < s.size(); i++) {
            String at = "steps[" + i + "]";
            steps.add(step(object(s.get(i), at), at));
        }
        String subject = string(doc, "subjectKey", "subjectKey", false);
        return new WorkflowDefinition(id, subject == null ? "" : subject, triggers, steps);
    }

    private static StepDefinition step(JsonObject o, String at) {
        String policy = string(o, "onFailure", at + ".onFailure", false);
        FailurePolicy onFailure;
        try {
            onFailure = policy == null ? FailurePolicy.ABORT : FailurePolicy.valueOf(policy.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw Problem.invalid(at + ".onFailure", "onFailure \"" + policy + "\" is not one of abort, pause");
        }
        RetryPolicy retry = RetryPolicy.NONE;
        if (o.containsKey("retry") && o.get("retry").getValueType() != JsonValue.ValueType.NULL) {
            JsonObject r = object(o.get("retry"), at + ".retry");
            String rat = at + ".retry";
            retry = new RetryPolicy(number(r, "maxAttempts", rat + ".maxAttempts", 3).intValue(),
                    duration(r, "initialDelay", rat + ".initialDelay", Duration.ofSeconds(1)),
                    number(r, "multiplier", rat + ".multiplier", 2).doubleValue(),
                    duration(r, "maxDelay", rat + ".maxDelay", Duration.ofMinutes(5)),
                    number(r, "jitter", rat + ".jitter", 0).doubleValue(),
                    Set.copyOf(strings(r, "nonRetryable", rat + ".nonRetryable")));
        }
        return new StepDefinition(string(o, "id", at + ".id", true), string(o, "actor", at + ".actor", true),
                string(o, "expectation", at + ".expectation", true), strings(o, "dependsOn", at + ".dependsOn"),
                bool(o, "critical", at + ".critical", true), bool(o, "approval", at + ".approval", false), onFailure, retry,
                priority(o, at + ".priority"), signal(o, at + ".signal"), string(o, "concurrencyKey", at + ".concurrencyKey", false),
                limit(o, at + ".concurrencyLimit"));
    }

    /** A step's own concurrency limit: absent for none, else an integer (its range is the validation's). */
    private static int limit(JsonObject o, String field) {
        Number n = number(o, "concurrencyLimit", field, 0L);
        if (!(n instanceof Long l) || l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
            throw Problem.invalid(field, field + " must be an integer, not " + n);
        }
        return l.intValue();
    }

    private static int priority(JsonObject o, String field) {
        Number n = number(o, "priority", field, 0L);
        if (!(n instanceof Long l) || l < -1_000_000 || l > 1_000_000) {
            throw Problem.invalid(field, field + " must be an integer from -1000000 to 1000000, not " + n);
        }
        return l.intValue();
    }

    /** A step's signal gate: absent or null for none, else a signal name (letters, digits, . _ : -). */
    private static String signal(JsonObject o, String at) {
        String name = string(o, "signal", at, false);
        return name == null ? null : io.cyclium.episode.WaitStore.checkSignalName(name, at);
    }

    public static JsonObject write(WorkflowDefinition def) {
        JsonArrayBuilder triggers = Jsons.array();
        for (WorkflowTrigger t : def.triggers()) {
            JsonObjectBuilder b = Jsons.object().add("type", t.type());
            if (t.event() != null) {
                b.add("event", t.event());
            }
            if (!t.filter().isEmpty()) {
                b.add("filter", Jsons.provider().createArrayBuilder(t.filter()));
            }
            if (t.every() != null) {
                b.add("every", t.every());
            }
            triggers.add(b);
        }
        JsonArrayBuilder steps = Jsons.array();
        for (StepDefinition s : def.steps()) {
            RetryPolicy r = s.retry();
            JsonObjectBuilder step = Jsons.object().add("id", s.id()).add("actor", s.actor())
                    .add("expectation", s.expectation()).add("dependsOn", Jsons.provider().createArrayBuilder(s.dependsOn())).add("critical", s.critical())
                    .add("approval", s.approval()).add("onFailure", s.onFailure().wire())
                    .add("retry", Jsons.object().add("maxAttempts", r.maxAttempts())
                            .add("initialDelay", r.initialDelay().toString()).add("multiplier", r.multiplier())
                            .add("maxDelay", r.maxDelay().toString()).add("jitter", r.jitter())
                            .add("nonRetryable", Jsons.provider().createArrayBuilder(r.nonRetryable().stream().sorted().toList())));
            if (s.priority() != 0) {
                step.add("priority", s.priority()); // only when set: a document without it reads as before
            }
            if (s.concurrencyKey() != null || s.concurrencyLimit() != 0) {
                // only when set, as above
                if (s.concurrencyKey() != null) {
                    step.add("concurrencyKey", s.concurrencyKey());
                }
                step.add("concurrencyLimit", s.concurrencyLimit());
            }
            if (s.signal() != null) {
                // only when set: a definition without signal gates keeps the JSON (and version) it had
                step.add("signal", s.signal());
            }
            steps.add(step);
        }
        return Jsons.object().add("id", def.id()).add("subjectKey", def.subjectKey()).add("triggers", triggers)
                .add("steps", steps).build();
    }

    private static JsonObject object(JsonValue v, String field) {
        if (v.getValueType() != JsonValue.ValueType.OBJECT) {
            throw Problem.invalid(field, field + " must be an object");
        }
        return v.asJsonObject();
    }

    private static JsonArray array(JsonObject o, String name, String field) {
        JsonValue v = o.get(name);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return JsonValue.EMPTY_JSON_ARRAY;
        }
        if (v.getValueType() != JsonValue.ValueType.ARRAY) {
            throw Problem.invalid(field, field + " must be an array");
        }
        return v.asJsonArray();
    }

    private static String string(JsonObject o, String name, String field, boolean required) {
        JsonValue v = o.get(name);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            if (required) {
                throw Problem.invalid(field, field + " is required");
            }
            return null;
        }
        if (!(v instanceof JsonString str)) {
            throw Problem.invalid(field, field + " must be a string");
        }
        return str.getString();
    }

    private static List<String> strings(JsonObject o, String name, String field) {
        JsonArray a = array(o, name, field);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (!(a.get(i) instanceof JsonString str)) {
                throw Problem.invalid(field + "[" + i + "]", field + "[" + i + "] must be a string");
            }
            out.add(str.getString());
        }
        return out;
    }

    private static Number number(JsonObject o, String name, String field, Number fallback) {
        JsonValue v = o.get(name);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (!(v instanceof JsonNumber n)) {
            throw Problem.invalid(field, field + " must be a number");
        }
        return n.isIntegral() ? (Number) n.longValue() : (Number) n.doubleValue();
    }

    private static boolean bool(JsonObject o, String name, String field, boolean fallback) {
        JsonValue v = o.get(name);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v.getValueType() != JsonValue.ValueType.TRUE && v.getValueType() != JsonValue.ValueType.FALSE) {
            throw Problem.invalid(field, field + " must be true or false");
        }
        return v.getValueType() == JsonValue.ValueType.TRUE;
    }

    private static Duration duration(JsonObject o, String name, String field, Duration fallback) {
        String text = string(o, name, field, false);
        if (text == null) {
            return fallback;
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            throw Problem.invalid(field, field + " \"" + text + "\" is not an ISO-8601 duration such as PT1S");
        }
    }
}
