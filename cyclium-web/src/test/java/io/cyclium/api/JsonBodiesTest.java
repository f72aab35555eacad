package io.cyclium.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.problem.Problem;
import org.junit.jupiter.api.Test;

class JsonBodiesTest {

    @Test
    void an_object_followed_by_more_text_is_not_taken_for_the_object() {
        assertThatThrownBy(() -> JsonBodies.object("{\"mode\": \"full\"} {\"mode\": \"disabled\"}"))
                .isInstanceOf(Problem.class).hasMessageContaining("not valid JSON").hasMessageContaining("more after");
        assertThatThrownBy(() -> JsonBodies.object("{} trailing")).isInstanceOf(Problem.class);
    }

    @Test
    void a_whole_object_with_surrounding_white_space_is_read() {
        assertThat(JsonBodies.object("  {\"a\": {\"b\": [1, 2]}}\n").getJsonObject("a").getJsonArray("b")).hasSize(2);
    }

    @Test
    void scalars_arrays_and_broken_text_are_400s() {
        for (String body : new String[] {"\"text\"", "[1]", "{", "nul", "\u0000"}) {
            assertThatThrownBy(() -> JsonBodies.object(body)).as(body).isInstanceOf(Problem.class)
                    .satisfies(p -> assertThat(((Problem) p).status()).isEqualTo(400));
        }
    }

    @Test
    void a_priority_is_an_integer_in_its_range_or_a_400_naming_the_field() {
        assertThat(JsonBodies.optionalInt(JsonBodies.object("{\"priority\": 7}"), "priority", -10, 10)).isEqualTo(7);
        assertThat(JsonBodies.optionalInt(JsonBodies.object("{}"), "priority", -10, 10)).isNull();
        assertThat(JsonBodies.optionalInt(JsonBodies.object("{\"priority\": null}"), "priority", -10, 10)).isNull();
        for (String body : new String[] {"{\"priority\": \"high\"}", "{\"priority\": 1.5}", "{\"priority\": 11}",
                "{\"priority\": 99999999999999999999}"}) {
            assertThatThrownBy(() -> JsonBodies.optionalInt(JsonBodies.object(body), "priority", -10, 10)).as(body)
                    .isInstanceOf(Problem.class).hasMessageContaining("\"priority\"")
                    .satisfies(p -> assertThat(((Problem) p).status()).isEqualTo(400));
        }
    }
}
