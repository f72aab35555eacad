package io.cyclium.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.ApiOperations;
import io.cyclium.it.ApiOperations.Operation;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The OpenAPI document against the code, without a server (ApiProbes checks the served copy). */
class OpenApiDocumentTest {

    private final JsonObject document = OpenApiDocument.build("/cyclium/api");

    static List<Operation> documented(JsonObject document) {
        List<Operation> ops = new ArrayList<>();
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().keySet().stream()
                .filter(Set.of("get", "put", "post", "delete", "head", "patch", "options")::contains)
                .forEach(method -> ops.add(new Operation(method, path, List.of(), false))));
        return ops;
    }

    private static Set<String> keys(List<Operation> ops) {
        return ops.stream().map(Operation::toString).collect(Collectors.toSet());
    }

    @Test
    void documents_every_resource_method_and_nothing_the_code_does_not_have() {
        Set<String> code = keys(ApiOperations.all());
        Set<String> doc = keys(documented(document));
        assertThat(doc).as("operations in the document").containsExactlyInAnyOrderElementsOf(code);
    }

    @Test
    void documents_every_query_parameter_of_every_resource_method() {
        for (Operation op : ApiOperations.all()) {
            JsonObject operation = document.getJsonObject("paths").getJsonObject(op.path()).getJsonObject(op.method());
            Set<String> documented = operation.containsKey("parameters") ? operation.getJsonArray("parameters").stream()
                    .map(p -> resolve(p.asJsonObject()).getString("name")).collect(Collectors.toSet()) : Set.of();
            assertThat(documented).as("query parameters of " + op).containsAll(op.queryParams());
        }
    }

    @Test
    void every_reference_points_at_something_defined() {
        List<String> refs = new ArrayList<>();
        collectRefs(document, refs);
        assertThat(refs).isNotEmpty();
        for (String ref : refs) {
            assertThat(lookup(ref)).as(ref).isNotNull();
        }
    }

    @Test
    void the_error_schema_is_the_api_error_record_and_every_json_error_response_uses_it() {
        JsonObject error = document.getJsonObject("components").getJsonObject("schemas").getJsonObject("ApiError");
        assertThat(error.getJsonObject("properties").keySet()).containsExactly("status", "error", "field", "errorId");
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().forEach((method, op) ->
                op.asJsonObject().getJsonObject("responses").forEach((status, response) -> {
                    JsonObject r = resolve(response.asJsonObject());
                    if (Set.of("400", "404", "500").contains(status)) {
                        assertThat(r.getJsonObject("content").getJsonObject("application/json").getJsonObject("schema")
                                .getString("$ref")).as(method + " " + path + " " + status).endsWith("/ApiError");
                    }
                })));
    }

    @Test
    void response_schemas_follow_the_records_the_resources_return() {
        JsonObject episode = document.getJsonObject("components").getJsonObject("schemas").getJsonObject("Episode");
        assertThat(episode.getJsonObject("properties").keySet()).contains("id", "actorId", "status", "startedAt");
        assertThat(episode.getJsonObject("properties").getJsonObject("attempts").getString("type")).isEqualTo("integer");
        JsonObject detail = document.getJsonObject("components").getJsonObject("schemas").getJsonObject("EpisodeDetail");
        assertThat(detail.getJsonObject("properties").getJsonObject("steps").getJsonObject("items").getString("$ref"))
                .isEqualTo("#/components/schemas/Step");
        assertThat(document.getJsonArray("servers").getJsonObject(0).getString("url")).isEqualTo("/cyclium/api");
    }

    @Test
    void an_episode_detail_has_one_field_named_waiting_the_sleep_or_wait_and_the_queue_reason_is_queued_because() {
        JsonObject schemas = document.getJsonObject("components").getJsonObject("schemas");
        assertThat(schemas.getJsonObject("Episode").getJsonObject("properties").keySet()).contains("queuedBecause")
                .doesNotContain("waiting");
        assertThat(schemas.getJsonObject("EpisodeDetail").getJsonObject("properties").getJsonObject("waiting").getString("$ref"))
                .isEqualTo("#/components/schemas/EpisodeWait");
    }

    private JsonObject resolve(JsonObject maybeRef) {
        return maybeRef.containsKey("$ref") ? lookup(maybeRef.getString("$ref")) : maybeRef;
    }

    private JsonObject lookup(String ref) {
        assertThat(ref).startsWith("#/");
        JsonValue at = document;
        for (String part : ref.substring(2).split("/")) {
            at = at == null ? null : at.asJsonObject().get(part);
        }
        return at == null ? null : at.asJsonObject();
    }

    private static void collectRefs(JsonValue v, List<String> refs) {
        if (v instanceof JsonObject o) {
            o.forEach((k, child) -> {
                if ("$ref".equals(k) && child instanceof JsonString s) {
                    refs.add(s.getString());
                } else {
                    collectRefs(child, refs);
                }
            });
        } else if (v instanceof JsonStructure s && v.getValueType() == JsonValue.ValueType.ARRAY) {
            s.asJsonArray().forEach(child -> collectRefs(child, refs));
        }
    }
}
