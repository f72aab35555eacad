package io.cyclium.docs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/rest-api.md against the OpenAPI document the application serves
 * (cyclium-web/src/main/resources/io/cyclium/api/openapi.json, itself checked against the
 * resource classes by {@code OpenApiDocumentTest}): every operation is written in the doc as
 * {@code `METHOD /path`}, and every operation the doc's tables name exists.
 */
class RestApiDocTest {

    static final String DOC = "docs/rest-api.md";
    static final String OPENAPI = "cyclium-web/src/main/resources/io/cyclium/api/openapi.json";
    private static final List<String> METHODS = List.of("get", "put", "post", "delete", "patch", "head", "options");
    private static final Pattern OPERATION = Pattern.compile("`(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS) (/[^`?\\s]*)");

    @Test
    void every_operation_of_the_openapi_document_is_in_the_doc() {
        Set<String> documented = documented();
        Set<String> missing = new TreeSet<>(operations());
        missing.removeAll(documented);
        assertThat(missing).as("operations of " + OPENAPI + " not written as `METHOD /path` in " + DOC).isEmpty();
    }

    @Test
    void every_operation_of_the_doc_is_in_the_openapi_document() {
        Set<String> operations = operations();
        Set<String> unknown = new TreeSet<>(documented());
        unknown.removeAll(operations);
        assertThat(unknown).as("operations " + DOC + " names that " + OPENAPI + " does not have").isEmpty();
    }

    static Set<String> operations() {
        JsonObject document;
        try (JsonReader reader = Json.createReader(new StringReader(Docs.read(Docs.doc(OPENAPI))))) {
            document = reader.readObject();
        }
        Set<String> operations = new TreeSet<>();
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().keySet().stream()
                .filter(METHODS::contains)
                .forEach(method -> operations.add(method.toUpperCase(Locale.ROOT) + " " + path)));
        assertThat(operations).as("operations in " + OPENAPI).contains("POST /events");
        return operations;
    }

    /** Every {@code `METHOD /path`} written in the doc, its query string left off. */
    static Set<String> documented() {
        Set<String> documented = new TreeSet<>();
        Matcher m = OPERATION.matcher(Docs.withoutFences(Docs.read(Docs.doc(DOC))));
        while (m.find()) {
            documented.add(m.group(1) + " " + m.group(2));
        }
        return documented;
    }
}
