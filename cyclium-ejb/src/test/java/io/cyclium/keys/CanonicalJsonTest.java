package io.cyclium.keys;

import io.cyclium.actor.trigger.TestJson;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalJsonTest {

    private static JsonValue json(String text) {
        return TestJson.value(text);
    }

    // ---- canonical text -----------------------------------------------------------------------

    @Test
    void objects_are_written_with_sorted_keys_and_no_whitespace() {
        assertThat(CanonicalJson.canonical(json("""
                { "b" : 1,
                  "a" : { "y" : [ true, false, null ], "x" : "s" } }
                """))).isEqualTo("{\"a\":{\"x\":\"s\",\"y\":[true,false,null]},\"b\":1}");
    }

    @Test
    void array_order_is_kept() {
        assertThat(CanonicalJson.canonical(json("[3, 1, 2]"))).isEqualTo("[3,1,2]");
    }

    @Test
    void empty_containers_and_literals_have_their_plain_forms() {
        assertThat(CanonicalJson.canonical(json("{}"))).isEqualTo("{}");
        assertThat(CanonicalJson.canonical(json("[]"))).isEqualTo("[]");
        assertThat(CanonicalJson.canonical(JsonValue.TRUE)).isEqualTo("true");
        assertThat(CanonicalJson.canonical(JsonValue.FALSE)).isEqualTo("false");
        assertThat(CanonicalJson.canonical(JsonValue.NULL)).isEqualTo("null");
    }

    @Test
    void a_java_null_is_treated_as_json_null() {
        assertThat(CanonicalJson.canonical(null)).isEqualTo("null");
        assertThat(CanonicalJson.hash(null)).isEqualTo(CanonicalJson.hash(JsonValue.NULL));
    }

    @Test
    void keys_are_sorted_by_code_point_not_by_utf16_unit() {
        // U+FF61 sorts before U+1F600 by code point, but after its surrogate pair (D83D DE00)
        // when compared as UTF-16 units, which is what String.compareTo does.
        String halfwidthStop = "\uFF61";
        String grinningFace = "\uD83D\uDE00";
        JsonValue object = Json.createObjectBuilder()
                .add(grinningFace, 2)
                .add(halfwidthStop, 1)
                .add("a", 0)
                .build();
        assertThat(CanonicalJson.canonical(object))
                .isEqualTo("{\"a\":0,\"" + halfwidthStop + "\":1,\"" + grinningFace + "\":2}");
    }

    @Test
    void a_key_that_is_a_prefix_of_another_sorts_first() {
        assertThat(CanonicalJson.canonical(json("{\"ab\":1,\"a\":2}"))).isEqualTo("{\"a\":2,\"ab\":1}");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1", "1.0", "1e0", "1E+0", "10e-1", "1.000", "0.1e1", "100e-2"})
    void every_spelling_of_one_is_written_as_1(String number) {
        assertThat(CanonicalJson.canonical(json("[" + number + "]"))).isEqualTo("[1]");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "100,        100",
        "1e2,        100",
        "1.5E2,      150",
        "0.5,        0.5",
        "5e-1,       0.5",
        "0.50,       0.5",
        "-0,         0",
        "0.0,        0",
        "-0.0e5,     0",
        "-12.3400,   -12.34",
        "123456789012345678901234567890, 123456789012345678901234567890",
        "1e-7,       0.0000001",
    })
    void numbers_are_written_from_their_value_alone(String number, String canonical) {
        assertThat(CanonicalJson.canonical(json("[" + number + "]"))).isEqualTo("[" + canonical + "]");
    }

    @Test
    void numbers_built_in_java_match_numbers_parsed_from_text() {
        JsonValue built = Json.createObjectBuilder()
                .add("i", 10)
                .add("d", 10.0)
                .add("b", new BigDecimal("1.0E1"))
                .build();
        assertThat(CanonicalJson.canonical(built)).isEqualTo("{\"b\":10,\"d\":10,\"i\":10}");
    }

    @Test
    void huge_exponents_stay_short_and_still_compare_by_value() {
        assertThat(CanonicalJson.canonical(json("[1e999999999]"))).isEqualTo("[1E999999999]");
        assertThat(CanonicalJson.hash(json("1E1001"))).isEqualTo(CanonicalJson.hash(json("10e1000")));
        assertThat(CanonicalJson.canonical(json("1e-1001"))).isEqualTo("1E-1001");
        assertThat(CanonicalJson.canonical(json("1e1000"))).hasSize(1001).startsWith("10000");
    }

    @Test
    void strings_escape_quotes_backslashes_and_control_characters() {
        JsonValue value = Json.createValue("q\" b\\ n\n r\r t\t b\b f\f nul\u0000 us\u001f");
        assertThat(CanonicalJson.canonical(value))
                .isEqualTo("\"q\\\" b\\\\ n\\n r\\r t\\t b\\b f\\f nul\\u0000 us\\u001f\"");
    }

    @Test
    void slashes_delete_and_non_ascii_text_are_written_as_they_are() {
        JsonValue value = Json.createValue("a/b \u007f é 😀");
        assertThat(CanonicalJson.canonical(value)).isEqualTo("\"a/b \u007f é 😀\"");
    }

    @Test
    void an_unpaired_surrogate_is_escaped_so_it_does_not_collide_with_a_question_mark() {
        assertThat(CanonicalJson.canonical(Json.createValue("x\uD800y"))).isEqualTo("\"x\\ud800y\"");
        assertThat(CanonicalJson.canonical(Json.createValue("\uDC00"))).isEqualTo("\"\\udc00\"");
        assertThat(CanonicalJson.hash(Json.createValue("\uD800")))
                .isNotEqualTo(CanonicalJson.hash(Json.createValue("?")));
    }

    @Test
    void the_canonical_text_parses_back_to_a_value_with_the_same_canonical_text() {
        JsonValue original = json("""
                {"z":[1.50,{"k":"v\\n","a":null}],"m":-0.0,"e":"\\u00e9\\ud83d\\ude00","t":true}
                """);
        String canonical = CanonicalJson.canonical(original);
        assertThat(CanonicalJson.canonical(json(canonical))).isEqualTo(canonical);
    }

    // ---- hash ---------------------------------------------------------------------------------

    @Test
    void hash_is_lowercase_hex_sha256_of_the_canonical_utf8_bytes() {
        // reference values: sha256 of the exact canonical text, computed independently
        assertThat(CanonicalJson.hash(JsonValue.NULL))
                .isEqualTo("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
        assertThat(CanonicalJson.hash(json("{ \"a\" : 1.0 }")))
                .isEqualTo("015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
        assertThat(CanonicalJson.hash(Json.createValue("é😀")))
                .isEqualTo("5120b0dbdd5539f03b48389a6740c87aa497758ca96b3d69165453c9e01f3235");
    }

    @Test
    void key_order_and_whitespace_do_not_change_the_hash() {
        String a = CanonicalJson.hash(json("{\"a\":[1,\"x\"],\"b\":{\"c\":true}}"));
        String b = CanonicalJson.hash(json("""
                {
                  "b": { "c": true },
                  "a": [ 1, "x" ]
                }
                """));
        assertThat(a).isEqualTo(b)
                .isEqualTo("7bc1d4c77305c3b7a6c9baf4eb98ea1a5c613dfad39c54d270608be4f47c693d");
    }

    @Test
    void numeric_spelling_does_not_change_the_hash() {
        assertThat(CanonicalJson.hash(json("{\"limit\":10,\"ratio\":0.5}")))
                .isEqualTo(CanonicalJson.hash(json("{\"ratio\":5e-1,\"limit\":1.0E1}")));
    }

    @ParameterizedTest(name = "{0} vs {1}")
    @CsvSource(delimiter = '|', value = {
        "1                 | 2",
        "1                 | \"1\"",
        "true              | \"true\"",
        "null              | \"null\"",
        "null              | false",
        "[1,2]             | [2,1]",
        "{}                | []",
        "{\"a\":1}         | {\"a\":1,\"b\":null}",
        "{\"a\":1}         | {\"A\":1}",
        "{\"a\":{\"b\":1}} | {\"a\":{\"b\":1.01}}",
        "\"a b\"           | \"ab\"",
        "[\"a\",\"b\"]     | [\"a,b\"]",
    })
    void a_different_value_gets_a_different_hash(String left, String right) {
        assertThat(CanonicalJson.hash(json(left))).isNotEqualTo(CanonicalJson.hash(json(right)));
    }

    @Test
    void sha256_hex_of_text_matches_the_known_digest() {
        assertThat(CanonicalJson.sha256Hex("null"))
                .isEqualTo("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
    }
}
