package io.cyclium.actor;

import io.cyclium.actor.trigger.TestJson;

import static io.cyclium.actor.PayloadFilter.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PayloadFilterTest {

    private static JsonObject payload(String json) {
        return TestJson.object(json);
    }

    // ---- literals -----------------------------------------------------------------------------

    @Test
    void a_string_literal_matches_only_that_string() {
        PayloadFilter filter = PayloadFilter.parse("kind=cpu");
        assertThat(filter.matches(payload("{\"kind\":\"cpu\",\"other\":1}"))).isTrue();
        assertThat(filter.matches(payload("{\"kind\":\"memory\"}"))).isFalse();
        assertThat(filter.matches(payload("{\"kind\":\"CPU\"}"))).isFalse();
    }

    @Test
    void every_condition_must_hold() {
        PayloadFilter filter = PayloadFilter.parse("kind=cpu", "limit=10");
        assertThat(filter.matches(payload("{\"kind\":\"cpu\",\"limit\":10}"))).isTrue();
        assertThat(filter.matches(payload("{\"kind\":\"cpu\",\"limit\":11}"))).isFalse();
        assertThat(filter.matches(payload("{\"kind\":\"disk\",\"limit\":10}"))).isFalse();
    }

    @ParameterizedTest(name = "limit={0}")
    @ValueSource(strings = {"10", "10.0", "1e1", "1.0E+1", "100e-1"})
    void numbers_compare_by_value_whatever_their_spelling(String number) {
        assertThat(PayloadFilter.parse("limit=10").matches(payload("{\"limit\":" + number + "}"))).isTrue();
        assertThat(PayloadFilter.parse("limit=" + number).matches(payload("{\"limit\":10}"))).isTrue();
    }

    @Test
    void a_number_does_not_match_a_different_number_or_the_same_digits_as_a_string() {
        PayloadFilter filter = PayloadFilter.parse("limit=10");
        assertThat(filter.matches(payload("{\"limit\":10.5}"))).isFalse();
        assertThat(filter.matches(payload("{\"limit\":\"10\"}"))).isFalse();
    }

    @Test
    void a_quoted_value_is_always_a_string() {
        PayloadFilter filter = PayloadFilter.parse("limit=\"10\"");
        assertThat(filter.matches(payload("{\"limit\":\"10\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"limit\":10}"))).isFalse();
        assertThat(PayloadFilter.parse("flag=\"true\"").matches(payload("{\"flag\":\"true\"}"))).isTrue();
        assertThat(PayloadFilter.parse("note=\"\"").matches(payload("{\"note\":\"\"}"))).isTrue();
    }

    @Test
    void negative_and_fractional_numbers_parse_as_numbers() {
        assertThat(PayloadFilter.parse("ratio=-0.50").matches(payload("{\"ratio\":-0.5}"))).isTrue();
        assertThat(PayloadFilter.parse("ratio=-0.50").matches(payload("{\"ratio\":0.5}"))).isFalse();
    }

    @Test
    void true_false_and_null_are_json_literals_not_strings() {
        assertThat(PayloadFilter.parse("enabled=true").matches(payload("{\"enabled\":true}"))).isTrue();
        assertThat(PayloadFilter.parse("enabled=true").matches(payload("{\"enabled\":\"true\"}"))).isFalse();
        assertThat(PayloadFilter.parse("enabled=false").matches(payload("{\"enabled\":false}"))).isTrue();
        assertThat(PayloadFilter.parse("enabled=false").matches(payload("{\"enabled\":true}"))).isFalse();
        assertThat(PayloadFilter.parse("parent=null").matches(payload("{\"parent\":null}"))).isTrue();
        assertThat(PayloadFilter.parse("parent=null").matches(payload("{\"parent\":0}"))).isFalse();
        // only lowercase spellings are literals, as in JSON
        assertThat(PayloadFilter.parse("mode=True").matches(payload("{\"mode\":\"True\"}"))).isTrue();
    }

    @Test
    void a_missing_field_never_matches_not_even_null() {
        assertThat(PayloadFilter.parse("kind=cpu").matches(payload("{}"))).isFalse();
        assertThat(PayloadFilter.parse("parent=null").matches(payload("{}"))).isFalse();
    }

    @Test
    void bare_text_keeps_inner_spaces_and_drops_surrounding_ones() {
        PayloadFilter filter = PayloadFilter.parse("  title =  hello world  ");
        assertThat(filter.matches(payload("{\"title\":\"hello world\"}"))).isTrue();
    }

    // ---- in lists -----------------------------------------------------------------------------

    @Test
    void an_in_list_matches_any_of_its_values() {
        PayloadFilter filter = PayloadFilter.parse("kind in (cpu,memory)");
        assertThat(filter.matches(payload("{\"kind\":\"cpu\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"kind\":\"memory\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"kind\":\"disk\"}"))).isFalse();
        assertThat(filter.matches(payload("{}"))).isFalse();
    }

    @Test
    void in_lists_allow_spaces_any_case_keyword_and_mixed_types() {
        PayloadFilter filter = PayloadFilter.parse("code IN( 200 , \"200\", ok )");
        assertThat(filter.matches(payload("{\"code\":200.0}"))).isTrue();
        assertThat(filter.matches(payload("{\"code\":\"200\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"code\":\"ok\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"code\":201}"))).isFalse();
    }

    @Test
    void quoted_list_items_may_hold_commas_parentheses_and_escaped_quotes() {
        PayloadFilter filter = PayloadFilter.parse("name in (\"a,b\", \"c)\", \"say \\\"hi\\\"\")");
        assertThat(filter.matches(payload("{\"name\":\"a,b\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"name\":\"c)\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"name\":\"say \\\"hi\\\"\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"name\":\"a\"}"))).isFalse();
    }

    @Test
    void an_in_list_built_in_java_matches_like_the_parsed_one() {
        PayloadFilter filter = PayloadFilter.of(Map.of("kind", in("cpu", "memory")));
        assertThat(filter.matches(payload("{\"kind\":\"memory\"}"))).isTrue();
        assertThat(filter.matches(payload("{\"kind\":\"disk\"}"))).isFalse();
    }

    // ---- dotted paths -------------------------------------------------------------------------

    @Test
    void a_dotted_path_reaches_into_nested_objects() {
        PayloadFilter filter = PayloadFilter.parse("resource.kind=cpu");
        assertThat(filter.matches(payload("{\"resource\":{\"kind\":\"cpu\"}}"))).isTrue();
        assertThat(filter.matches(payload("{\"resource\":{\"kind\":\"disk\"}}"))).isFalse();
    }

    @Test
    void a_dotted_path_does_not_match_a_flat_key_containing_the_dot() {
        assertThat(PayloadFilter.parse("resource.kind=cpu").matches(payload("{\"resource.kind\":\"cpu\"}")))
                .isFalse();
    }

    @Test
    void a_dotted_path_through_a_missing_or_non_object_field_does_not_match() {
        PayloadFilter filter = PayloadFilter.parse("resource.kind=cpu");
        assertThat(filter.matches(payload("{}"))).isFalse();
        assertThat(filter.matches(payload("{\"resource\":\"cpu\"}"))).isFalse();
        assertThat(filter.matches(payload("{\"resource\":null}"))).isFalse();
        assertThat(filter.matches(payload("{\"resource\":[{\"kind\":\"cpu\"}]}"))).isFalse();
    }

    @Test
    void deep_paths_work_with_in_lists() {
        PayloadFilter filter = PayloadFilter.parse("a.b.c in (1, 2)");
        assertThat(filter.matches(payload("{\"a\":{\"b\":{\"c\":2}}}"))).isTrue();
        assertThat(filter.matches(payload("{\"a\":{\"b\":{\"c\":3}}}"))).isFalse();
    }

    // ---- map form -----------------------------------------------------------------------------

    @Test
    void java_numbers_compare_numerically_with_json_numbers() {
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("i", 10);
        expected.put("l", 10L);
        expected.put("d", 0.5);
        expected.put("f", 0.25f);
        expected.put("b", new BigDecimal("1.50"));
        PayloadFilter filter = PayloadFilter.of(expected);
        assertThat(filter.matches(payload("{\"i\":10.0,\"l\":1e1,\"d\":5e-1,\"f\":0.250,\"b\":1.5}"))).isTrue();
        assertThat(filter.matches(payload("{\"i\":10.0,\"l\":1e1,\"d\":5e-1,\"f\":0.250,\"b\":1.51}"))).isFalse();
    }

    @Test
    void json_objects_and_arrays_compare_as_canonical_json() {
        PayloadFilter filter = PayloadFilter.of(Map.of(
                "labels", payload("{\"env\":\"prod\",\"weight\":1.0}"),
                "tags", Json.createArrayBuilder().add("a").add("b").build()));
        assertThat(filter.matches(payload("{\"labels\":{\"weight\":1,\"env\":\"prod\"},\"tags\":[\"a\",\"b\"]}")))
                .isTrue();
        assertThat(filter.matches(payload("{\"labels\":{\"weight\":1,\"env\":\"prod\"},\"tags\":[\"b\",\"a\"]}")))
                .isFalse();
    }

    @Test
    void java_booleans_and_null_match_json_literals() {
        Map<String, Object> expected = new HashMap<>();
        expected.put("on", true);
        expected.put("parent", null);
        PayloadFilter filter = PayloadFilter.of(expected);
        assertThat(filter.matches(payload("{\"on\":true,\"parent\":null}"))).isTrue();
        assertThat(filter.matches(payload("{\"on\":false,\"parent\":null}"))).isFalse();
    }

    @Test
    void the_map_form_and_the_text_form_agree() {
        PayloadFilter parsed = PayloadFilter.parse("kind in (cpu, memory)", "limit=10");
        PayloadFilter built = PayloadFilter.of(Map.of("kind", in("cpu", "memory"), "limit", 10));
        for (String json : new String[] {
            "{\"kind\":\"cpu\",\"limit\":10}", "{\"kind\":\"memory\",\"limit\":10.0}",
            "{\"kind\":\"disk\",\"limit\":10}", "{\"kind\":\"cpu\",\"limit\":\"10\"}", "{}"}) {
            assertThat(built.matches(payload(json))).as(json).isEqualTo(parsed.matches(payload(json)));
        }
    }

    @Test
    void values_of_other_types_are_rejected() {
        assertThatThrownBy(() -> PayloadFilter.of(Map.of("when", new Object())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload filter value for \"when\"")
                .hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> PayloadFilter.of(Map.of("ratio", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("finite");
    }

    @Test
    void in_needs_at_least_one_value_and_cannot_nest() {
        assertThatThrownBy(PayloadFilter::in)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one value");
        assertThatThrownBy(() -> in("a", in("b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot contain another");
    }

    @Test
    void a_blank_or_malformed_path_in_the_map_form_is_rejected() {
        assertThatThrownBy(() -> PayloadFilter.of(Map.of(" ", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> PayloadFilter.of(Map.of("a..b", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload filter path \"a..b\" has an empty segment; write dotted paths"
                        + " like resource.kind");
    }

    // ---- empty filters ------------------------------------------------------------------------

    @Test
    void a_filter_without_conditions_matches_every_payload_even_a_missing_one() {
        assertThat(PayloadFilter.none().isEmpty()).isTrue();
        assertThat(PayloadFilter.none().matches(payload("{\"x\":1}"))).isTrue();
        assertThat(PayloadFilter.none().matches(null)).isTrue();
        assertThat(PayloadFilter.parse().isEmpty()).isTrue();
        assertThat(PayloadFilter.of(Map.of()).matches(payload("{}"))).isTrue();
    }

    @Test
    void a_missing_payload_fails_any_condition() {
        assertThat(PayloadFilter.parse("kind=cpu").isEmpty()).isFalse();
        assertThat(PayloadFilter.parse("kind=cpu").matches(null)).isFalse();
    }

    // ---- parse errors -------------------------------------------------------------------------

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "kind                   | expected \"path=value\" or \"path in (value, ...)\"",
        "kind in cpu            | expected \"path=value\" or \"path in (value, ...)\"",
        "kind in (cpu           | expected \"path=value\" or \"path in (value, ...)\"",
        "=cpu                   | expected a field path before \"=\" or \"in\"",
        "my kind=cpu            | expected a field path before \"=\" or \"in\"",
        "kind=                  | the value is missing (write kind=\"\" to match an empty string)",
        "kind in ()             | the \"in\" list is empty",
        "kind in (cpu,,memory)  | item 2 of the \"in\" list is empty",
        "kind in (cpu,)         | item 2 of the \"in\" list is empty",
        "kind in (cp(u)         | parentheses inside the list must be quoted",
        "kind in (cpu, \"mem)   | a quoted value in the list is not closed",
        "kind=\"cpu             | value \"cpu is not a single JSON string",
        "kind=\"cpu\" extra     | value \"cpu\" extra is not a single JSON string",
        "kind=c\"pu             | value c\"pu has a quote inside; quote the whole value",
        "a..b=1                 | path \"a..b\" has an empty segment",
        ".a=1                   | path \".a\" has an empty segment",
        "a.=1                   | path \"a.\" has an empty segment",
    })
    void a_malformed_entry_is_rejected_naming_the_entry(String entry, String problem) {
        assertThatThrownBy(() -> PayloadFilter.parse(entry))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("payload filter entry \"" + entry + "\" is invalid: " + problem);
    }

    @Test
    void a_second_condition_on_the_same_path_is_rejected_naming_that_entry() {
        assertThatThrownBy(() -> PayloadFilter.parse("kind=cpu", "kind in (memory)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload filter entry \"kind in (memory)\" is invalid: path \"kind\""
                        + " already has a condition");
    }

    @Test
    void a_null_entry_is_rejected() {
        assertThatThrownBy(() -> PayloadFilter.parse("kind=cpu", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be null");
    }

    @Test
    void to_string_lists_the_conditions_with_json_values() {
        assertThat(PayloadFilter.parse("kind in (cpu, memory)", "limit=1.0E1", "resource.id=\"7\""))
                .hasToString("PayloadFilter[kind in (\"cpu\", \"memory\"); limit=10; resource.id=\"7\"]");
        assertThat(in("a", 1)).hasToString("in(\"a\", 1)");
    }
}
