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
}
