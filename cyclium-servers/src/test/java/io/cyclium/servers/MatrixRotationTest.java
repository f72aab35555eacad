package io.cyclium.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.rotation.CommitRotation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class MatrixRotationTest {

    @Test
    void every_matrix_cell_is_in_exactly_one_rotation_slot_and_every_slot_names_a_matrix_cell() {
        List<String> cells = matrixTests();
        List<String> slotted = MatrixRotation.SLOTS.stream().flatMap(List::stream).toList();

        assertThat(cells).hasSize(12);
        assertThat(slotted).containsExactlyInAnyOrderElementsOf(cells);
    }

    @Test
    void successive_commits_go_round_every_slot_and_the_same_commit_runs_the_same_cells() {
        List<String> ran = new ArrayList<>();
        for (long commits = 40; commits < 40 + MatrixRotation.SLOTS.size(); commits++) {
            long count = commits;
            CommitRotation.Selection chosen = MatrixRotation.select("rotation", () -> Optional.of(count));
            matrixTests().stream().filter(chosen::runs).forEach(ran::add);
            assertThat(MatrixRotation.select("rotation", () -> Optional.of(count))).isEqualTo(chosen);
        }

        assertThat(ran).containsExactlyInAnyOrderElementsOf(matrixTests());
    }

    @Test
    void all_runs_every_cell_and_a_slot_can_be_named() {
        assertThat(matrixTests()).allMatch(MatrixRotation.select("all", Optional::empty)::runs);
        assertThat(matrixTests().stream().filter(MatrixRotation.select("slot:3", Optional::empty)::runs))
                .containsExactlyInAnyOrderElementsOf(MatrixRotation.SLOTS.get(3));
    }

    @Test
    void a_value_it_cannot_read_is_refused_naming_the_value() {
        assertThatThrownBy(() -> MatrixRotation.select("slot:9", Optional::empty))
                .hasMessageContaining("cyclium.matrix=slot:9").hasMessageContaining("from 0 to 3");
        assertThatThrownBy(() -> MatrixRotation.select("slot:x", Optional::empty))
                .hasMessageContaining("cyclium.matrix=slot:x");
        assertThatThrownBy(() -> MatrixRotation.select("everything", Optional::empty))
                .hasMessageContaining("cyclium.matrix=everything").hasMessageContaining("all, rotation or slot:N");
    }

    /** The tests tagged "matrix" (on the method or on its class) of the server test classes. */
    private static List<String> matrixTests() {
        return Stream.of(EarSmokeIT.class, TwoNodesIT.class, ServerTracesIT.class, ServerOidcIT.class)
                .flatMap(type -> Arrays.stream(type.getDeclaredMethods())
                        .filter(m -> m.isAnnotationPresent(Test.class))
                        .filter(m -> matrix(m) || matrix(type))
                        .map(m -> type.getSimpleName() + "#" + m.getName()))
                .toList();
    }

    private static boolean matrix(java.lang.reflect.AnnotatedElement element) {
        Tag tag = element.getAnnotation(Tag.class);
        return tag != null && tag.value().equals("matrix");
    }

}
